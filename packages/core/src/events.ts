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

// Events are plain JSON. Lifecycle events carry a timestamp; per-delta events carry only what they
// must (no ids or timestamps minted per delta), so streaming stays cheap.

/** A reply starts (not emitted when a paused reply resumes). */
export interface ReplyStartEvent {
  type: 'REPLY_START';
  replyId: string;
  sessionId: string;
  /** The agent's name. */
  name: string;
  role: 'assistant';
  createdAt: string;
}

/** A reply ends. A paused reply ends its stream without this event. */
export interface ReplyEndEvent {
  type: 'REPLY_END';
  replyId: string;
  sessionId: string;
  finishedReason: ReplyFinishedReason;
  error: ErrorInfo | null;
  structuredOutput: unknown;
  createdAt: string;
}

/**
 * A reply whose process stopped continues from its last checkpoint (`reply(null)` on a stopped reply):
 * `message` is the reply as checkpointed. A client drops what it built from earlier events of this reply
 * (a stopped process may have streamed more than it checkpointed) and continues from this message.
 */
export interface ReplySnapshotEvent {
  type: 'REPLY_SNAPSHOT';
  replyId: string;
  message: Msg;
  createdAt: string;
}

/** A model call starts. */
export interface ModelCallStartEvent {
  type: 'MODEL_CALL_START';
  replyId: string;
  modelName: string;
  createdAt: string;
}

/** A model call ends, with its usage. */
export interface ModelCallEndEvent {
  type: 'MODEL_CALL_END';
  replyId: string;
  usage: Usage;
  finishedReason: 'completed' | 'interrupted' | 'error';
  createdAt: string;
}

/** A text block opens. */
export interface TextBlockStartEvent {
  type: 'TEXT_BLOCK_START';
  replyId: string;
  blockId: string;
}
/** Text is appended to an open text block. */
export interface TextBlockDeltaEvent {
  type: 'TEXT_BLOCK_DELTA';
  replyId: string;
  blockId: string;
  delta: string;
}
/** A text block closes. */
export interface TextBlockEndEvent {
  type: 'TEXT_BLOCK_END';
  replyId: string;
  blockId: string;
  providerData?: ProviderData | undefined;
}
/** A thinking block opens. */
export interface ThinkingBlockStartEvent {
  type: 'THINKING_BLOCK_START';
  replyId: string;
  blockId: string;
}
/** Reasoning text is appended to an open thinking block. */
export interface ThinkingBlockDeltaEvent {
  type: 'THINKING_BLOCK_DELTA';
  replyId: string;
  blockId: string;
  delta: string;
}
/** A thinking block closes. */
export interface ThinkingBlockEndEvent {
  type: 'THINKING_BLOCK_END';
  replyId: string;
  blockId: string;
  providerData?: ProviderData | undefined;
}
/** A base64 data block opens. */
export interface DataBlockStartEvent {
  type: 'DATA_BLOCK_START';
  replyId: string;
  blockId: string;
  mediaType: string;
}
/** A separately base64-encoded chunk of an open data block. */
export interface DataBlockDeltaEvent {
  type: 'DATA_BLOCK_DELTA';
  replyId: string;
  blockId: string;
  data: string;
  mediaType: string;
}
/** A data block closes. */
export interface DataBlockEndEvent {
  type: 'DATA_BLOCK_END';
  replyId: string;
  blockId: string;
  providerData?: ProviderData | undefined;
}

/** A hint was persisted into the reply (one-shot; hints are not streamed). */
export interface HintBlockEvent {
  type: 'HINT_BLOCK';
  replyId: string;
  blockId: string;
  source: string | null;
  hint: HintBlock['hint'];
  createdAt: string;
}

/** The model starts a tool call. */
export interface ToolCallStartEvent {
  type: 'TOOL_CALL_START';
  replyId: string;
  toolCallId: string;
  toolCallName: string;
}
/** A fragment of the call's JSON arguments. */
export interface ToolCallDeltaEvent {
  type: 'TOOL_CALL_DELTA';
  replyId: string;
  toolCallId: string;
  delta: string;
}
/** The model finished the tool call. */
export interface ToolCallEndEvent {
  type: 'TOOL_CALL_END';
  replyId: string;
  toolCallId: string;
  providerData?: ProviderData | undefined;
}

/**
 * A tool result starts (the call was allowed, or failed before running). `input` is present when a
 * `beforeTool` hook replaced the model's input: the call runs with (and keeps) this one.
 */
export interface ToolResultStartEvent {
  type: 'TOOL_RESULT_START';
  replyId: string;
  toolCallId: string;
  toolCallName: string;
  input?: string | undefined;
}
/** Text streamed by a tool. */
export interface ToolResultTextDeltaEvent {
  type: 'TOOL_RESULT_TEXT_DELTA';
  replyId: string;
  toolCallId: string;
  delta: string;
}
/** A data block produced by a tool: exactly one of `data` (base64) or `url`. */
export interface ToolResultDataDeltaEvent {
  type: 'TOOL_RESULT_DATA_DELTA';
  replyId: string;
  toolCallId: string;
  blockId: string;
  mediaType: string;
  data?: string | undefined;
  url?: string | undefined;
  name?: string | null | undefined;
}
/**
 * A tool result ends. `output` is present when the saved output differs from what was streamed (an
 * `afterTool` hook truncated or rewrote it); the streamed deltas are always the tool's full output.
 */
export interface ToolResultEndEvent {
  type: 'TOOL_RESULT_END';
  replyId: string;
  toolCallId: string;
  state: ToolResultState;
  metadata: JSONObject;
  output?: Array<TextBlock | DataBlock> | undefined;
}

/** Emitted just before `REPLY_END(exceed_max_iters)`. */
export interface ExceedMaxItersEvent {
  type: 'EXCEED_MAX_ITERS';
  replyId: string;
  name: string;
}

/** The reply pauses: these calls need the user's confirmation (state `asking`, with suggested rules). */
export interface RequireUserConfirmEvent {
  type: 'REQUIRE_USER_CONFIRM';
  replyId: string;
  toolCalls: ToolCallBlock[];
}
/** The reply pauses: these calls must be executed by the caller (state `submitted`). */
export interface RequireExternalExecutionEvent {
  type: 'REQUIRE_EXTERNAL_EXECUTION';
  replyId: string;
  toolCalls: ToolCallBlock[];
}

/** The user's answer about one call. */
export interface ConfirmResult {
  confirmed: boolean;
  /** The call; when confirmed, its `name` and `input` replace the model's (the user may edit them). */
  toolCall: Pick<ToolCallBlock, 'id' | 'name' | 'input'> & Partial<ToolCallBlock>;
  /** Allow rules to remember (persisted in state), e.g. a call's `suggestedRules`. */
  rules?: PermissionRule[] | null | undefined;
}

/** Input: the user's answers to `REQUIRE_USER_CONFIRM`. Partial answers are allowed. */
export interface UserConfirmResultEvent {
  type: 'USER_CONFIRM_RESULT';
  replyId?: string | undefined;
  confirmResults: ConfirmResult[];
}
/** Input: results of externally executed calls. Partial answers are allowed. */
export interface ExternalExecutionResultEvent {
  type: 'EXTERNAL_EXECUTION_RESULT';
  replyId?: string | undefined;
  executionResults: Array<{
    /** The id of the submitted call. */
    id: string;
    /** Text, or text and data parts (ids optional). */
    output: string | Array<TextBlock | DataBlock | Omit<TextBlock, 'id'> | Omit<DataBlock, 'id'>>;
    state: Exclude<ToolResultState, 'running'>;
    metadata?: JSONObject | undefined;
  }>;
}
/** Input: the user ends a paused reply. A no-op when nothing is paused. */
export interface UserInterruptEvent {
  type: 'USER_INTERRUPT';
  replyId?: string | undefined;
}

/** A custom event emitted by a plugin (`ctx.emit`). */
export interface CustomEvent {
  type: 'CUSTOM';
  replyId: string;
  name: string;
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
