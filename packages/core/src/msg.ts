import type { ContentBlock, ContentBlockType, DataBlock, TextBlock, ToolResultBlock } from './blocks';
import type { ErrorInfo } from './error-info';
import { MessageValidationError } from './errors/input-errors';
import { newId } from './ids';
import { now } from './now';
import type { JSONObject } from './json';
import type { Usage } from './usage';

/** Who speaks. */
export type Role = 'user' | 'assistant' | 'system';

/** How a reply ended. `null` on a message means the reply is paused (or not a reply at all). */
export type ReplyFinishedReason = 'completed' | 'interrupted' | 'exceed_max_iters' | 'error';

/**
 * A message. One reply of the agent is one assistant message whose id is the reply id; it accumulates
 * every hint, thinking, text, tool call and tool result of the reply across its iterations.
 * `S` is the type of `structuredOutput` when the reply was asked for one.
 */
export interface Msg<S = unknown> {
  id: string;
  name: string;
  role: Role;
  content: ContentBlock[];
  /** What the application attached (JSON); absent when nothing was (no empty object per message). */
  metadata?: JSONObject | undefined;
  createdAt: string;
  /** Usage summed over every model call of the reply. */
  usage: Usage | null;
  finishedAt: string | null;
  finishedReason: ReplyFinishedReason | null;
  structuredOutput: S | null;
  error: ErrorInfo | null;
}

const allowedBlocks: Record<Role, ReadonlySet<ContentBlockType> | null> = {
  user: new Set(['text', 'data']),
  system: new Set(['text']),
  assistant: null,
};

/**
 * Throws {@link MessageValidationError} unless `msg` follows the role rules: a user message holds only
 * text and data blocks, a system message only text blocks, an assistant message anything.
 */
export function validateMsg(msg: Pick<Msg, 'role' | 'content'>): void {
  if (msg.role !== 'user' && msg.role !== 'assistant' && msg.role !== 'system')
    throw new MessageValidationError(
      `Unknown role '${String(msg.role)}'; use 'user', 'assistant' or 'system'.`,
    );
  if (!Array.isArray(msg.content)) throw new MessageValidationError('A message needs a content array.');
  const allowed = allowedBlocks[msg.role];
  if (!allowed) return;
  for (const block of msg.content) {
    if (!allowed.has(block.type))
      throw new MessageValidationError(
        `A ${msg.role} message cannot contain a '${block.type}' block (allowed: ${[...allowed].join(', ')}).`,
      );
  }
}

/** What {@link createMsg} accepts. */
export interface MsgInit<S = unknown> {
  role: Role;
  name?: string | undefined;
  /** A string becomes one text block. */
  content: string | ContentBlock[];
  id?: string | undefined;
  metadata?: JSONObject | undefined;
  createdAt?: string | undefined;
  usage?: Usage | null | undefined;
  finishedAt?: string | null | undefined;
  finishedReason?: ReplyFinishedReason | null | undefined;
  structuredOutput?: S | null | undefined;
  error?: ErrorInfo | null | undefined;
}

/** Builds and validates a message. */
export function createMsg<S = unknown>(init: MsgInit<S>): Msg<S> {
  const createdAt = init.createdAt ?? now();
  const id = init.id ?? newId();
  const msg: Msg<S> = {
    id,
    name: init.name ?? init.role,
    role: init.role,
    // The one block of a text message shares the message's id: unique, and no second string to keep.
    content: typeof init.content === 'string' ? [textBlock(init.content, id)] : init.content,
    createdAt,
    usage: init.usage ?? null,
    finishedAt:
      init.finishedAt !== undefined ? init.finishedAt : init.role === 'assistant' ? null : createdAt,
    finishedReason: init.finishedReason ?? null,
    structuredOutput: init.structuredOutput ?? null,
    error: init.error ?? null,
  };
  if (init.metadata !== undefined && hasKeys(init.metadata)) msg.metadata = init.metadata;
  validateMsg(msg);
  return msg;
}

function hasKeys(o: object): boolean {
  for (const _ in o) return true;
  return false;
}

/**
 * Builds a user message.
 * @example agent.reply(userMsg('What files are here?'))
 */
export function userMsg(
  content: string | Array<TextBlock | DataBlock>,
  options?: { name?: string | undefined },
): Msg {
  return createMsg({ role: 'user', name: options?.name ?? 'user', content });
}

/** Builds a system message (text only). */
export function systemMsg(content: string | TextBlock[], options?: { name?: string | undefined }): Msg {
  return createMsg({ role: 'system', name: options?.name ?? 'system', content });
}

/** Builds an assistant message. */
export function assistantMsg(
  content: string | ContentBlock[],
  options?: { name?: string | undefined; id?: string | undefined },
): Msg {
  return createMsg({ role: 'assistant', name: options?.name ?? 'assistant', content, id: options?.id });
}

/** Builds a text block. */
export function textBlock(text: string, id: string = newId()): TextBlock {
  return { type: 'text', id, text };
}

/**
 * The text of a message: its top-level text blocks joined by `separator`, or `null` when it has none.
 * Thinking, hint and tool blocks are ignored.
 */
export function getText(msg: Pick<Msg, 'content'>, separator = '\n'): string | null {
  let out: string | null = null;
  for (const block of msg.content) {
    if (block.type !== 'text') continue;
    out = out === null ? block.text : out + separator + block.text;
  }
  return out;
}

/** The blocks of `msg` of the given type(s). */
export function getBlocks<T extends ContentBlockType>(
  msg: Pick<Msg, 'content'>,
  type: T | readonly T[],
): Array<Extract<ContentBlock, { type: T }>> {
  const types: readonly string[] = Array.isArray(type) ? type : [type];
  return msg.content.filter((b) => types.includes(b.type)) as Array<Extract<ContentBlock, { type: T }>>;
}

/** The result block of tool call `id` in `msg`, searched from the end (where the newest blocks are). */
export function findToolResult(msg: Pick<Msg, 'content'>, id: string): ToolResultBlock | undefined {
  for (let i = msg.content.length - 1; i >= 0; i--) {
    const b = msg.content[i]!;
    if (b.type === 'tool_result' && b.id === id) return b;
  }
  return undefined;
}
