import { z } from 'zod';

/**
 * Ids in URLs and bodies: URL-safe, 1–128 characters, so they never need escaping anywhere; not `.` or `..`,
 * which URLs resolve as path segments (a session of that id could never be reached).
 */
export const Id = z
  .string()
  .regex(
    /^(?!\.\.?$)[A-Za-z0-9_.~-]{1,128}$/,
    "must be 1 to 128 characters from A-Z a-z 0-9 _ . ~ -, and not '.' or '..'",
  );

const TextPart = z.object({ type: z.literal('text'), text: z.string() });
const DataPart = z.object({
  type: z.literal('data'),
  source: z.union([
    z.object({ type: z.literal('base64'), data: z.string(), mediaType: z.string().min(1) }),
    z.object({ type: z.literal('url'), url: z.string().min(1), mediaType: z.string().min(1) }),
  ]),
  name: z.string().nullable().optional(),
});

/** A message a client sends: user (or another speaker's assistant) text and data. */
export const InputMessage = z.object({
  role: z.enum(['user', 'assistant']),
  name: z.string().min(1).max(128).optional(),
  content: z.union([z.string(), z.array(z.union([TextPart, DataPart])).min(1)]),
  metadata: z.record(z.string(), z.json()).optional(),
});

const PermissionRule = z.object({
  toolName: z.string(),
  ruleContent: z.string().nullable(),
  behavior: z.enum(['allow', 'deny', 'ask']),
});

/** The user's answers to a pause for confirmation. */
export const ConfirmInput = z.object({
  type: z.literal('USER_CONFIRM_RESULT'),
  replyId: z.string().optional(),
  confirmResults: z
    .array(
      z.object({
        confirmed: z.boolean(),
        toolCall: z.object({ id: z.string(), name: z.string(), input: z.string() }).loose(),
        rules: z.array(PermissionRule).nullable().optional(),
      }),
    )
    .min(1),
});

/** Results of externally executed tool calls. */
export const ExternalResultInput = z.object({
  type: z.literal('EXTERNAL_EXECUTION_RESULT'),
  replyId: z.string().optional(),
  executionResults: z
    .array(
      z.object({
        id: z.string(),
        output: z.union([z.string(), z.array(z.union([TextPart, DataPart]))]),
        state: z.enum(['success', 'error', 'interrupted', 'denied']),
        metadata: z.record(z.string(), z.json()).optional(),
      }),
    )
    .min(1),
});

/** Body of `POST …/replies`. */
export const ReplyBody = z.object({
  /**
   * A user message (a string), messages, the answer to a pause (`USER_CONFIRM_RESULT`,
   * `EXTERNAL_EXECUTION_RESULT`), or `null` to continue (a reply left unfinished continues where it stopped).
   */
  input: z.union([
    z.string().min(1),
    z.array(InputMessage).min(1),
    ConfirmInput,
    ExternalResultInput,
    z.null(),
  ]),
  /** An idempotency key: a request repeated with the same id never replies twice. */
  replyId: Id.optional(),
  /** Ask for a structured result (JSON Schema of an object; needs the structured-output plugin). */
  structuredSchema: z.record(z.string(), z.json()).optional(),
});

/** Body of `POST …/sessions`. */
export const CreateSessionBody = z.object({
  sessionId: Id.optional(),
  metadata: z.record(z.string(), z.json()).optional(),
});

/** Query of list routes. */
export const PageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).optional(),
  cursor: z.string().max(512).optional(),
});

/** Query of `GET …/messages`. */
export const MessagesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).optional(),
  before: z.string().max(256).optional(),
});

/** Query of `GET …/events`. */
export const EventsQuery = z.object({
  /** Resume after this event id (for clients that cannot send `Last-Event-ID`). */
  after: z.string().max(64).optional(),
});
