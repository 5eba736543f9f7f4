import type { DataBlock, ProviderData } from './blocks';
import type { JSONSchema } from './json';
import type { Msg } from './msg';
import type { Usage } from './usage';

/** How the model may use tools on a call: `auto`, `none`, `required` (any tool), or one named tool. */
export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

/** A tool as the model sees it. */
export interface ToolSchema {
  name: string;
  description: string;
  /** JSON Schema of the input (an object schema). */
  inputSchema: JSONSchema;
}

/**
 * One model call. `messages` are the conversation after the system prompt: the compression summary (as
 * a user message) when there is one, then the context. Hint blocks inside assistant messages must be
 * sent as separate user messages, at their position.
 */
export interface ModelRequest {
  systemPrompt: string;
  /**
   * Read-only: without a summary this is the agent's context itself (not copied per call). A hook that
   * wants other messages returns a new array.
   */
  messages: readonly Msg[];
  tools: ToolSchema[];
  toolChoice: ToolChoice;
  signal: AbortSignal;
  /**
   * The name of the agent the request is for. An assistant message with another `name` (not the unnamed
   * default `assistant`) is another speaker's — an agent's reply passed to `observe` — and adapters send it
   * as that speaker's, not as the model's own turn (`toProviderTurns(messages, { agentName })`). Absent:
   * every assistant message is the model's.
   */
  agentName?: string | undefined;
}

/**
 * A streamed piece of a model response. Chunks are deltas. A `text` chunk after `thinking` closes the
 * thinking block (and vice versa); `tool_call` chunks are keyed by `id` (the first one of an id carries
 * the name; later ones may omit it); `providerData` is merged into the block (e.g. thought signatures);
 * `newBlock: true` closes the open text/thinking/data block and starts another (two reasoning items, two
 * images).
 */
export type ModelChunk =
  | { type: 'text'; delta: string; providerData?: ProviderData | undefined; newBlock?: boolean | undefined }
  | {
      type: 'thinking';
      delta: string;
      providerData?: ProviderData | undefined;
      newBlock?: boolean | undefined;
    }
  | {
      type: 'tool_call';
      id: string;
      name?: string | undefined;
      delta: string;
      providerData?: ProviderData | undefined;
    }
  | {
      type: 'data';
      mediaType: string;
      data: string;
      newBlock?: boolean | undefined;
      providerData?: ProviderData | undefined;
    }
  | { type: 'usage'; usage: Usage };

/** What token counting sees: the same fields as a request, without the signal. */
export interface TokenCountInput {
  systemPrompt: string;
  messages: readonly Msg[];
  tools: readonly ToolSchema[];
}

/**
 * The model spec every adapter implements. Streaming first: `stream` yields chunks; the last `usage`
 * chunk is the call's usage. Throw `ModelError` (classified) on failure; stop when `signal` aborts.
 */
export interface ChatModel {
  /** The model's name, reported in `MODEL_CALL_START`. */
  readonly name: string;
  /** The context window in tokens. */
  readonly contextSize: number;
  /** Streams one response. */
  stream(request: ModelRequest): AsyncIterable<ModelChunk>;
  /**
   * Counts tokens more exactly than core's estimate, when the adapter can. Core calls it per message
   * (and once for system prompt + tools) and caches the results, so it should be a pure function.
   */
  countTokens?: ((input: TokenCountInput) => number) | undefined;
}

/** A data block as a chunk payload; re-exported for adapter authors. */
export type ModelDataBlock = DataBlock;
