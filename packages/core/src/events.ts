import type {
  DataBlock,
  HintBlock,
  PermissionRule,
  ProviderData,
  TextBlock,
  ToolCallBlock,
  ToolResultState,
} from './blocks';
import type { ErrorInfo } from './error-info';
import type { JSONObject } from './json';
import type { Msg, ReplyFinishedReason } from './msg';
import type { Usage } from './usage';

// The wire contract: what `replyStream` yields and what `reply` accepts besides messages. Events are
// plain JSON. Lifecycle events carry a timestamp; per-delta events carry only what they must (no ids or
// timestamps minted per delta), so streaming stays cheap. `applyEvent` applies each one to the reply
// message: replaying a reply's events rebuilds the message the agent persisted.
//
// Shared fields: `type` tags the event; `replyId` is the id of the reply (and of its assistant message)
// the event belongs to; `blockId` is the id of the content block it opens, extends or closes; times
// (`createdAt`) are ISO 8601 strings.

/** A reply starts (not emitted when a paused reply resumes). */
export interface ReplyStartEvent {
  /** The event's kind. */
  type: 'REPLY_START';
  /** The new reply's id, which is also the id of its assistant message. */
  replyId: string;
  /** The session the agent's state belongs to (`state.sessionId`). */
  sessionId: string;
  /** The agent's name (the message's `name`). */
  name: string;
  /** The role of the reply's message. */
  role: 'assistant';
  /** When the reply's message was created. */
  createdAt: string;
}

/** A reply ends. A paused reply ends its stream without this event. */
export interface ReplyEndEvent {
  /** The event's kind. */
  type: 'REPLY_END';
  /** The reply that ended. */
  replyId: string;
  /** The session the agent's state belongs to. */
  sessionId: string;
  /** Why the reply ended: `completed`, `interrupted`, `exceed_max_iters` or `error`. */
  finishedReason: ReplyFinishedReason;
  /** What failed, secret-free, when `finishedReason` is `error`; otherwise `null`. */
  error: ErrorInfo | null;
  /** The structured result of a `completed` reply that was asked for one; otherwise `null`. */
  structuredOutput: unknown;
  /** When the reply ended (the message's `finishedAt`). */
  createdAt: string;
}

/**
 * A reply whose process stopped continues from its last checkpoint (`reply(null)` on a stopped reply):
 * `message` is the reply as checkpointed. A client drops what it built from earlier events of this reply
 * (a stopped process may have streamed more than it checkpointed) and continues from this message.
 */
export interface ReplySnapshotEvent {
  /** The event's kind. */
  type: 'REPLY_SNAPSHOT';
  /** The reply that continues. */
  replyId: string;
  /** The reply's message as checkpointed: it replaces whatever a client built for this reply. */
  message: Msg;
  /** When the recovered run started (ISO 8601). */
  createdAt: string;
}

/**
 * A model call of the reply starts: one of the loop's, or a plugin's (`ctx.streamModel` during the reply,
 * e.g. a compression summary, named by `plugin`). Every model call's usage reaches the reply message
 * through its `MODEL_CALL_END`.
 */
export interface ModelCallStartEvent {
  /** The event's kind. */
  type: 'MODEL_CALL_START';
  /** The reply making the call. */
  replyId: string;
  /** The model that answers: the primary one, or the fallback after the primary failed. */
  modelName: string;
  /** The plugin that made the call through `ctx.streamModel` (e.g. a compression summary); absent for the reply's own calls. */
  plugin?: string | undefined;
  /** When the call's stream opened (after any retries). */
  createdAt: string;
}

/** A model call ends, with its usage. */
export interface ModelCallEndEvent {
  /** The event's kind. */
  type: 'MODEL_CALL_END';
  /** The reply that made the call. */
  replyId: string;
  /** The call's token usage, added to the reply message's `usage`. */
  usage: Usage;
  /** How the call's stream ended: fully, cut by an interrupt, or failed (or cut off by a limit). */
  finishedReason: 'completed' | 'interrupted' | 'error';
  /** The plugin that made the call, as in `MODEL_CALL_START`; absent for the reply's own calls. */
  plugin?: string | undefined;
  /** When the call ended. */
  createdAt: string;
}

/** A text block opens. */
export interface TextBlockStartEvent {
  /** The event's kind. */
  type: 'TEXT_BLOCK_START';
  /** The reply the block belongs to. */
  replyId: string;
  /** The new block's id. */
  blockId: string;
}
/** Text is appended to an open text block. */
export interface TextBlockDeltaEvent {
  /** The event's kind. */
  type: 'TEXT_BLOCK_DELTA';
  /** The reply the block belongs to. */
  replyId: string;
  /** The open text block. */
  blockId: string;
  /** The text appended. */
  delta: string;
}
/** A text block closes. */
export interface TextBlockEndEvent {
  /** The event's kind. */
  type: 'TEXT_BLOCK_END';
  /** The reply the block belongs to. */
  replyId: string;
  /** The block that closes. */
  blockId: string;
  /** What the provider needs back with this block on later requests (e.g. a signature), kept on the block. */
  providerData?: ProviderData | undefined;
}
/** A thinking block opens. */
export interface ThinkingBlockStartEvent {
  /** The event's kind. */
  type: 'THINKING_BLOCK_START';
  /** The reply the block belongs to. */
  replyId: string;
  /** The new block's id. */
  blockId: string;
}
/** Reasoning text is appended to an open thinking block. */
export interface ThinkingBlockDeltaEvent {
  /** The event's kind. */
  type: 'THINKING_BLOCK_DELTA';
  /** The reply the block belongs to. */
  replyId: string;
  /** The open thinking block. */
  blockId: string;
  /** The reasoning text appended. */
  delta: string;
}
/** A thinking block closes. */
export interface ThinkingBlockEndEvent {
  /** The event's kind. */
  type: 'THINKING_BLOCK_END';
  /** The reply the block belongs to. */
  replyId: string;
  /** The block that closes. */
  blockId: string;
  /** What the provider needs back with this block (e.g. an encrypted reasoning signature), kept on the block. */
  providerData?: ProviderData | undefined;
}
/** A base64 data block opens. */
export interface DataBlockStartEvent {
  /** The event's kind. */
  type: 'DATA_BLOCK_START';
  /** The reply the block belongs to. */
  replyId: string;
  /** The new block's id. */
  blockId: string;
  /** The data's media type, e.g. `image/png`. */
  mediaType: string;
}
/** A separately base64-encoded chunk of an open data block. */
export interface DataBlockDeltaEvent {
  /** The event's kind. */
  type: 'DATA_BLOCK_DELTA';
  /** The reply the block belongs to. */
  replyId: string;
  /** The open data block. */
  blockId: string;
  /** The chunk's bytes, base64-encoded on their own (decode each chunk, then concatenate the bytes). */
  data: string;
  /** The data's media type, as in `DATA_BLOCK_START`. */
  mediaType: string;
}
/** A data block closes. */
export interface DataBlockEndEvent {
  /** The event's kind. */
  type: 'DATA_BLOCK_END';
  /** The reply the block belongs to. */
  replyId: string;
  /** The block that closes. */
  blockId: string;
  /** What the provider needs back with this block on later requests, kept on the block. */
  providerData?: ProviderData | undefined;
}

/** A hint was persisted into the reply (one-shot; hints are not streamed). */
export interface HintBlockEvent {
  /** The event's kind. */
  type: 'HINT_BLOCK';
  /** The reply the hint was added to. */
  replyId: string;
  /** The hint block's id. */
  blockId: string;
  /** Who added it: a plugin's name by default, `agentkit` for the loop's own, or `null`. */
  source: string | null;
  /** The hint: text, or text and data parts; the model sees it as a user turn at its position. */
  hint: HintBlock['hint'];
  /** When the hint was added. */
  createdAt: string;
}

/** The model starts a tool call. */
export interface ToolCallStartEvent {
  /** The event's kind. */
  type: 'TOOL_CALL_START';
  /** The reply the call belongs to. */
  replyId: string;
  /** The call's id, unique within the reply (a provider id used twice gets a `_2`, `_3`… suffix). */
  toolCallId: string;
  /** The tool the model named (`''` when the provider did not say). */
  toolCallName: string;
}
/** A fragment of the call's JSON arguments. */
export interface ToolCallDeltaEvent {
  /** The event's kind. */
  type: 'TOOL_CALL_DELTA';
  /** The reply the call belongs to. */
  replyId: string;
  /** The call whose arguments grow. */
  toolCallId: string;
  /** The text appended to the call's `input` (JSON text, complete only once all fragments arrived). */
  delta: string;
}
/** The model finished the tool call. */
export interface ToolCallEndEvent {
  /** The event's kind. */
  type: 'TOOL_CALL_END';
  /** The reply the call belongs to. */
  replyId: string;
  /** The call the model finished. */
  toolCallId: string;
  /** What the provider needs back with this call on later requests, kept on the call. */
  providerData?: ProviderData | undefined;
}

/**
 * A tool result starts (the call was allowed, or failed before running). `input` is present when a
 * `beforeTool` hook replaced the model's input: the call runs with (and keeps) this one — or `''` when the
 * model's arguments exceeded `limits.maxToolInputChars` and were dropped.
 */
export interface ToolResultStartEvent {
  /** The event's kind. */
  type: 'TOOL_RESULT_START';
  /** The reply the call belongs to. */
  replyId: string;
  /** The call this result answers (the result block has the same id). */
  toolCallId: string;
  /** The tool's name. */
  toolCallName: string;
  /** The input the call runs with, when a hook replaced the model's (JSON text); it replaces the call's. */
  input?: string | undefined;
}
/** Text streamed by a tool. */
export interface ToolResultTextDeltaEvent {
  /** The event's kind. */
  type: 'TOOL_RESULT_TEXT_DELTA';
  /** The reply the call belongs to. */
  replyId: string;
  /** The call whose result grows. */
  toolCallId: string;
  /** The text appended to the result's last text part (a new part when the last one is data). */
  delta: string;
}
/** A data block produced by a tool: exactly one of `data` (base64) or `url`. */
export interface ToolResultDataDeltaEvent {
  /** The event's kind. */
  type: 'TOOL_RESULT_DATA_DELTA';
  /** The reply the call belongs to. */
  replyId: string;
  /** The call whose result grows. */
  toolCallId: string;
  /** The new data part's id. */
  blockId: string;
  /** The data's media type, e.g. `image/png`. */
  mediaType: string;
  /** The whole data, base64-encoded (absent when `url` is given). */
  data?: string | undefined;
  /** Where the data lives (absent when `data` is given). */
  url?: string | undefined;
  /** A file name for the data, when the tool gave one. */
  name?: string | null | undefined;
}
/**
 * A tool result ends. `output` is present when the saved output differs from what was streamed (an
 * `afterTool` hook truncated or rewrote it); the streamed deltas are always the tool's full output.
 */
export interface ToolResultEndEvent {
  /** The event's kind. */
  type: 'TOOL_RESULT_END';
  /** The reply the call belongs to. */
  replyId: string;
  /** The call this result answers; the call is `finished` from now on. */
  toolCallId: string;
  /** How the call ended: `success`, `error`, `interrupted` or `denied`. */
  state: ToolResultState;
  /** The tool's metadata for this result (JSON; `{}` when none). */
  metadata: JSONObject;
  /** The saved output, when it differs from the streamed one; it replaces the result's output. */
  output?: Array<TextBlock | DataBlock> | undefined;
}

/** Emitted just before `REPLY_END(exceed_max_iters)`. */
export interface ExceedMaxItersEvent {
  /** The event's kind. */
  type: 'EXCEED_MAX_ITERS';
  /** The reply that reached its iteration limit. */
  replyId: string;
  /** The agent's name. */
  name: string;
}

/** The reply pauses: these calls need the user's confirmation (state `asking`, with suggested rules). */
export interface RequireUserConfirmEvent {
  /** The event's kind. */
  type: 'REQUIRE_USER_CONFIRM';
  /** The reply that pauses. */
  replyId: string;
  /** Copies of the calls as they wait: state `asking`, their input, and the rules offered to remember. */
  toolCalls: ToolCallBlock[];
}
/** The reply pauses: these calls must be executed by the caller (state `submitted`). */
export interface RequireExternalExecutionEvent {
  /** The event's kind. */
  type: 'REQUIRE_EXTERNAL_EXECUTION';
  /** The reply that pauses. */
  replyId: string;
  /** Copies of the calls to execute: state `submitted`, with their name and input. */
  toolCalls: ToolCallBlock[];
}

/** The user's answer about one call. */
export interface ConfirmResult {
  /** `true` runs the call; `false` denies it (the model gets a `denied` result). */
  confirmed: boolean;
  /** The call; when confirmed, its `name` and `input` replace the model's (the user may edit them). */
  toolCall: Pick<ToolCallBlock, 'id' | 'name' | 'input'> & Partial<ToolCallBlock>;
  /** Allow rules to remember (persisted in state), e.g. a call's `suggestedRules`. */
  rules?: PermissionRule[] | null | undefined;
}

/** Input: the user's answers to `REQUIRE_USER_CONFIRM`. Partial answers are allowed. */
export interface UserConfirmResultEvent {
  /** The event's kind. */
  type: 'USER_CONFIRM_RESULT';
  /** The paused reply it answers; when given, it must be the paused one (`ResumeMismatchError`). */
  replyId?: string | undefined;
  /** One answer per call, each call at most once. */
  confirmResults: ConfirmResult[];
}
/** Input: results of externally executed calls. Partial answers are allowed. */
export interface ExternalExecutionResultEvent {
  /** The event's kind. */
  type: 'EXTERNAL_EXECUTION_RESULT';
  /** The paused reply it answers; when given, it must be the paused one (`ResumeMismatchError`). */
  replyId?: string | undefined;
  /** One result per submitted call, each call at most once. */
  executionResults: Array<{
    /** The id of the submitted call. */
    id: string;
    /** Text, or text and data parts (ids optional). */
    output: string | Array<TextBlock | DataBlock | Omit<TextBlock, 'id'> | Omit<DataBlock, 'id'>>;
    /** How the execution ended: `success`, `error`, `interrupted` or `denied`. */
    state: Exclude<ToolResultState, 'running'>;
    /** Metadata saved with the result (JSON). */
    metadata?: JSONObject | undefined;
  }>;
}
/** Input: the user ends a paused reply. A no-op when nothing is paused. */
export interface UserInterruptEvent {
  /** The event's kind. */
  type: 'USER_INTERRUPT';
  /** The paused reply to end (informational; the agent's paused reply is the one ended). */
  replyId?: string | undefined;
}

/** A custom event emitted by a plugin (`ctx.emit`). */
export interface CustomEvent {
  /** The event's kind. */
  type: 'CUSTOM';
  /** The reply during which the plugin emitted it. */
  replyId: string;
  /** The plugin's name for the event, namespaced by convention (e.g. `context.compressed`). */
  name: string;
  /** The event's payload (JSON). */
  value: JSONObject;
}

/** Events the agent accepts as `reply` input. */
export type InputEvent = UserConfirmResultEvent | ExternalExecutionResultEvent | UserInterruptEvent;

/** Every event `replyStream` yields. */
export type AgentEvent =
  | ReplyStartEvent
  | ReplyEndEvent
  | ReplySnapshotEvent
  | ModelCallStartEvent
  | ModelCallEndEvent
  | TextBlockStartEvent
  | TextBlockDeltaEvent
  | TextBlockEndEvent
  | ThinkingBlockStartEvent
  | ThinkingBlockDeltaEvent
  | ThinkingBlockEndEvent
  | DataBlockStartEvent
  | DataBlockDeltaEvent
  | DataBlockEndEvent
  | HintBlockEvent
  | ToolCallStartEvent
  | ToolCallDeltaEvent
  | ToolCallEndEvent
  | ToolResultStartEvent
  | ToolResultTextDeltaEvent
  | ToolResultDataDeltaEvent
  | ToolResultEndEvent
  | ExceedMaxItersEvent
  | RequireUserConfirmEvent
  | RequireExternalExecutionEvent
  | CustomEvent;

/** The `type` tag of an {@link AgentEvent}. */
export type AgentEventType = AgentEvent['type'];

/** Builds a confirm-result input. */
export function userConfirmResult(confirmResults: ConfirmResult[]): UserConfirmResultEvent {
  return { type: 'USER_CONFIRM_RESULT', confirmResults };
}

/** Builds an external-execution-result input. */
export function externalExecutionResult(
  executionResults: ExternalExecutionResultEvent['executionResults'],
): ExternalExecutionResultEvent {
  return { type: 'EXTERNAL_EXECUTION_RESULT', executionResults };
}

/** Builds a user-interrupt input. */
export function userInterrupt(): UserInterruptEvent {
  return { type: 'USER_INTERRUPT' };
}

/** True when `value` is one of the input events. */
export function isInputEvent(value: unknown): value is InputEvent {
  const t = (value as { type?: unknown | undefined } | null)?.type;
  return t === 'USER_CONFIRM_RESULT' || t === 'EXTERNAL_EXECUTION_RESULT' || t === 'USER_INTERRUPT';
}
