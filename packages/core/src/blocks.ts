import type { JSONObject } from './json';

/** Provider-specific data an adapter needs to send back on later turns (e.g. Gemini thought signatures). */
export type ProviderData = JSONObject;

/** Plain text. */
export interface TextBlock {
  type: 'text';
  id: string;
  text: string;
  providerData?: ProviderData | undefined;
}

/** Model reasoning. A redacted block has `thinking: ''` and keeps what the provider needs in `providerData`. */
export interface ThinkingBlock {
  type: 'thinking';
  id: string;
  thinking: string;
  providerData?: ProviderData | undefined;
}

/** Inline base64 data. */
export interface Base64Source {
  type: 'base64';
  data: string;
  mediaType: string;
}

/** Data behind a URL (https:, data:, or a store's own scheme such as `workspace:///data/…`). */
export interface UrlSource {
  type: 'url';
  url: string;
  mediaType: string;
}

/** Binary data: images, audio, files. */
export interface DataBlock {
  type: 'data';
  id: string;
  source: Base64Source | UrlSource;
  name?: string | null | undefined;
  /** What a provider needs back on later turns (e.g. a Gemini thought signature on a generated image). */
  providerData?: ProviderData | undefined;
}

/**
 * Information the framework or a plugin adds for the model (runtime state, reminders). Persisted in the
 * reply message; adapters send it to the model as a separate user message. `source` identifies who
 * added it, so plugins can recognise their own earlier hints.
 */
export interface HintBlock {
  type: 'hint';
  id: string;
  hint: string | Array<TextBlock | DataBlock>;
  source: string | null;
  createdAt: string;
}

/**
 * Lifecycle of a tool call:
 * `pending` → `allowed` (allowed by rules or hooks) → `finished` (local) or `submitted` (external) → `finished`;
 * `pending` → `asking` (waits for the user) → `allowed` or `finished` (denied);
 * `pending` → `finished` (denied, unknown tool, invalid input).
 */
export type ToolCallState = 'pending' | 'asking' | 'allowed' | 'submitted' | 'finished';

/** How a tool result came about. `running` only while the result streams. */
export type ToolResultState = 'success' | 'error' | 'interrupted' | 'denied' | 'running';

/** A rule that allows, denies or asks about calls of a tool. Persisted in `AgentState.permissions`. */
export interface PermissionRule {
  toolName: string;
  /** What the rule matches within the tool's input; `null` matches every call of the tool. */
  ruleContent: string | null;
  behavior: 'allow' | 'deny' | 'ask';
}

/** A call of a tool by the model. `input` is the raw JSON argument string, as streamed. */
export interface ToolCallBlock {
  type: 'tool_call';
  /** The call id, shared with its {@link ToolResultBlock}. */
  id: string;
  name: string;
  input: string;
  state: ToolCallState;
  /** Rules offered to the user when asking for confirmation. */
  suggestedRules?: PermissionRule[] | undefined;
  providerData?: ProviderData | undefined;
}

/** The result of a tool call. */
export interface ToolResultBlock {
  type: 'tool_result';
  /** The id of the call this answers. */
  id: string;
  name: string;
  output: Array<TextBlock | DataBlock>;
  state: ToolResultState;
  metadata: JSONObject;
}

/** Any content block. */
export type ContentBlock =
  | TextBlock
  | ThinkingBlock
  | DataBlock
  | HintBlock
  | ToolCallBlock
  | ToolResultBlock;
/** The `type` tag of a content block. */
export type ContentBlockType = ContentBlock['type'];
