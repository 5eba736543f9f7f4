import type { DataBlock, TextBlock, ToolResultState } from './blocks';
import type { JSONObject, JSONSchema } from './json';
import type { StandardSchemaV1 } from './standard-schema';
import type { AgentState } from './state';

/**
 * What a tool receives besides its input. A plugin's tools get a {@link PluginToolContext} (from
 * `plugin.ts`), which adds their plugin's context.
 */
export interface ToolContext {
  /** Aborted when the reply is interrupted. Pass it on to fetches, child processes, queries. */
  signal: AbortSignal;
  /** The id of this call. */
  toolCallId: string;
  /** The current reply's id. */
  replyId: string;
  /** The agent's live state. Plugin tools read and write their slot through `pluginState`. */
  state: AgentState;
  /** Reads a plugin's state slot. */
  getPluginState<T = unknown>(plugin: string): T;
  /** Replaces a plugin's state slot (must be JSON). */
  setPluginState(plugin: string, value: unknown): void;
  /**
   * Ends the reply after the current tool round (before the next model call) with `completed` and the
   * given structured output, or with `exceed_max_iters` for a limit reached; `text` becomes the reply's
   * closing text block (e.g. a placeholder next to a structured output).
   */
  finishReply(result: {
    structuredOutput?: unknown | undefined;
    reason?: 'completed' | 'exceed_max_iters' | undefined;
    text?: string | undefined;
  }): void;
}

/** One streamed piece of a tool's output: text, or a data block. */
export type ToolChunk = string | DataBlock | Omit<DataBlock, 'id'>;

/** A tool's final result, when it wants to set the state or metadata. */
export interface ToolResult {
  output: string | Array<TextBlock | DataBlock | Omit<TextBlock, 'id'> | Omit<DataBlock, 'id'>>;
  state?: Extract<ToolResultState, 'success' | 'error'> | undefined;
  metadata?: JSONObject | undefined;
}

/**
 * What `execute` may return: a string, a {@link ToolResult}, any other JSON value (sent as JSON text), or
 * an async iterable of {@link ToolChunk}s that stream to the client (its return value, if a
 * {@link ToolResult}, sets state and metadata).
 */
export type ToolOutput = unknown;

/** An input schema: a Standard Schema (zod, valibot…) with JSON Schema support, or plain JSON Schema. */
export type ToolInputSchema<I> = StandardSchemaV1<unknown, I> | JSONSchema;

/**
 * A tool the model can call. Build it with {@link defineTool} for input type inference. `C` is the context
 * `execute` needs: a plain {@link ToolContext}, or a plugin tool's `PluginToolContext` — a tool that needs
 * its plugin's context cannot be given to the agent's own `tools`.
 */
export interface Tool<I = any, C extends ToolContext = ToolContext> {
  name: string;
  description: string;
  /** Parsed and validated before `execute`; failures go back to the model as error results. */
  inputSchema: ToolInputSchema<I>;
  /** JSON Schema sent to the model; derived from `inputSchema` when omitted. */
  jsonSchema?: JSONSchema | undefined;
  /** Runs the tool. Omit for tools that are always executed externally. */
  execute?: ((input: I, ctx: C) => ToolOutput | Promise<ToolOutput> | AsyncIterable<ToolChunk>) | undefined;
  /**
   * How long one call may run, in ms. Past it the call's `ctx.signal` aborts and the call ends with an
   * `error` result saying it timed out (the model sees it); the reply goes on. Default: no limit.
   */
  timeoutMs?: number | undefined;
  /** Calls of concurrency-safe tools in one model response run in parallel. Default `false`. */
  concurrencySafe?: boolean | undefined;
  /** Ask the user before running (per call when a function). Permission rules in state can override. */
  needsConfirmation?: boolean | ((input: I) => boolean) | undefined;
  /** Executed by the caller: the reply pauses with `REQUIRE_EXTERNAL_EXECUTION`. */
  external?: boolean | undefined;
  /**
   * Running it twice has the same effect as once (a read, a lookup, a change only to the agent's own
   * state). Default `false`. A reply checkpoints before and after every other tool (see
   * `ReplyOptions.checkpoint`), and when a process died while such a tool ran, the recovered reply tells
   * the model the call may or may not have taken effect instead of running it again; an idempotent tool
   * is simply run again.
   */
  idempotent?: boolean;
  /**
   * Whether a permission rule's `ruleContent` covers this input (e.g. a command prefix, a path glob).
   * Default: the rule content equals the input's canonical JSON (sorted keys), i.e. exactly that input.
   */
  matchRule?: ((ruleContent: string, input: I) => boolean) | undefined;
}

/** Any tool, whatever context its `execute` needs: for code that lists or inspects tools. */
export type AnyTool = Tool<any, any>;
