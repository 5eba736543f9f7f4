import type { HintBlock, ToolCallBlock, ToolResultBlock } from './blocks';
import type { Capabilities } from './capabilities';
import type { InputEvent } from './events';
import type { JSONObject } from './json';
import type { Logger } from './logger';
import type { ChatModel, ModelChunk, ModelRequest, TokenCountInput, ToolChoice } from './model';
import type { Msg, ReplyFinishedReason } from './msg';
import type { StandardSchemaV1 } from './standard-schema';
import type { AgentState, ReplyPosition } from './state';
import type { AnyTool, Tool, ToolContext } from './tool';

/** A value or a promise of it. */
export type MaybePromise<T> = T | Promise<T>;

export type { Logger } from './logger';

/**
 * What a reply was started with: new messages, nothing (`continue`: a new reply on the context as it is),
 * the answer to a pause (`resume`), or `recover`: an unfinished reply whose process stopped mid-reply
 * continues from its last checkpoint (same reply id and reply data, like a resume).
 */
export type ReplyInput =
  | { kind: 'new'; messages: Msg[] }
  | { kind: 'continue' }
  | { kind: 'resume'; event: InputEvent }
  | { kind: 'recover' };

/**
 * Per-reply options. Plugins read their own keys (e.g. `structuredSchema` for
 * `@agentkit/structured-output`); to keep one across a pause they store it with `ctx.setReplyData`.
 */
export interface ReplyOptions<S = unknown> {
  /** Aborting ends the reply as `interrupted`; running tools see the signal. */
  signal?: AbortSignal | undefined;
  /**
   * The id of a new reply (default: a fresh one). Must not be the id of a message in the context. Lets a
   * caller recognise its reply after a crash: `runSession` uses it so a retried request never runs twice.
   */
  replyId?: string;
  /**
   * Makes the reply durable where side effects happen. Started (not awaited) once a new reply has accepted
   * its input, so the input outlives a process that dies during the first model call. Awaited after a tool
   * call is marked started in the state and before a tool that is not `idempotent` runs — when it throws,
   * the tool does not run and the reply ends with an error; started again (not awaited) once such a tool's
   * result is recorded.
   * `runSession` passes one that saves the state under the session's lease. The state is the live one:
   * serialise it before returning control (the store contract does).
   */
  checkpoint?: (state: AgentState) => Promise<void>;
  /**
   * Asks the reply to stop at its next safe point (between a model call and a tool round) and leave it
   * unfinished — no `REPLY_END`, checkpoints settled — so that `reply(null)`, in this process or another,
   * continues it. For graceful shutdown: unlike `signal`, nothing is cut off.
   */
  suspendSignal?: AbortSignal;
  /**
   * A deadline for this run of the reply, in ms: past it the reply's signal aborts (the model call, hooks
   * and tools stop as on an interrupt) and the reply ends `error` with a `connection` `ErrorInfo` (a
   * a `ReplyTimeoutError`'s message). A hung tool or provider needs no `signal` of the caller's.
   * A paused reply's time stops with the run; its resumption gets its own. Default: none.
   */
  timeoutMs?: number | undefined;
  /**
   * Ask this reply for a structured result (needs `@agentkit/structured-output`; without it the reply
   * fails with a `ConfigError`). Types `structuredOutput`.
   */
  structuredSchema?: StandardSchemaV1<unknown, S> | undefined;
  [option: string]: unknown;
}

/** The request of one model call, as `beforeInference` hooks see and edit it. */
export type InferenceRequest = Omit<ModelRequest, 'signal'>;

/** A decision of a `beforeTool` hook. */
export type ToolDecision =
  | { decision: 'allow'; input?: unknown | undefined }
  | { decision: 'deny'; message: string }
  | { decision: 'ask'; suggestedRules?: ToolCallBlock['suggestedRules'] | undefined }
  | { decision: 'external' }
  /** Run the tool with a different input (the call's stored input is updated). */
  | { decision?: undefined; input: unknown };

/** What a `beforeFinish` hook returns to refuse finishing: the loop continues with another model call. */
export interface ContinueReply {
  continue: true;
  /** Persisted as a hint (and emitted) before the next model call. */
  hint?: string | undefined;
  /** Tool choice for the next model call only. */
  toolChoice?: ToolChoice | undefined;
}

/**
 * What every hook receives as `ctx`: the agent, the live state, and the ways a plugin acts on the reply.
 * Bound to the plugin whose hook runs (its state slot, its name on hints) and to one run of one reply: the
 * plugin's hooks and tools in that run share one `ctx`, and a `ctx` kept past its run (work a hook or tool
 * left running after an interrupt) still acts on that run, never on the next reply. Its members are
 * methods: call them on `ctx` rather than detaching them.
 */
export interface PluginContext<S = unknown> {
  /** The name of the plugin this context belongs to. */
  readonly pluginName: string;
  readonly agentName: string;
  readonly model: ChatModel;
  readonly systemPrompt: string;
  /** The live agent state. Mutate through the methods below where one exists. */
  readonly state: AgentState;
  /** The current reply. */
  readonly reply: ReplyPosition;
  /** The agent's iteration limit (`maxIters`). */
  readonly maxIters: number;
  /** Aborted when the reply is interrupted. */
  readonly signal: AbortSignal;
  readonly logger: Logger;
  /** This plugin's state slot, typed by the plugin's `state.initial`. */
  getState(): S;
  /** Replaces this plugin's state slot (JSON only). */
  setState(value: S): void;
  /** This plugin's data for the current reply (survives pauses; reset for each new reply). */
  getReplyData<T = unknown>(): T | undefined;
  /** Sets this plugin's data for the current reply (JSON only). */
  setReplyData(value: unknown): void;
  /**
   * Persists a hint into the reply message and, unless `emit: false`, emits `HINT_BLOCK`.
   * `source` defaults to the plugin's name.
   */
  addHint(
    hint: HintBlock['hint'],
    options?: { source?: string | null | undefined; emit?: boolean | undefined },
  ): HintBlock;
  /**
   * Ends the reply before its next model call (a budget guard, a plugin that has what it needs), with
   * `completed` (default) or `exceed_max_iters` for a limit reached. Tool calls already being executed
   * finish first; a paused reply still waits for its answers. `text` is added (and streamed) as the
   * reply's closing text block.
   */
  finishReply(result?: {
    reason?: 'completed' | 'exceed_max_iters' | undefined;
    structuredOutput?: unknown | undefined;
    text?: string | undefined;
  }): void;
  /** Emits a `CUSTOM` event. */
  emit(name: string, value: JSONObject): void;
  /** Replaces the summary and context (compression). Counts are invalidated. */
  replaceContext(next: { summary: AgentState['summary']; context: Msg[] }): void;
  /**
   * Streams a model call (e.g. a summary) through the agent's retries and fallback model. Pass your own
   * `signal` or get the reply's.
   */
  streamModel(
    request: Omit<ModelRequest, 'signal'> & { signal?: AbortSignal | undefined },
  ): AsyncIterable<ModelChunk>;
  /** Counts the tokens of a request (default: the current state as the next model call would see it). */
  countTokens(input?: TokenCountInput): number;
  /** A capability another plugin provides, or `undefined`. */
  capability<K extends keyof Capabilities>(name: K): Capabilities[K] | undefined;
  /** The tools mounted for this reply. */
  readonly tools: readonly AnyTool[];
}

/** What a plugin's tool receives: a {@link ToolContext} that always has its plugin's context. */
export interface PluginToolContext<S = unknown> extends ToolContext {
  /** The context of the plugin that mounted this tool (its state slot, hints, model, compression…). */
  readonly plugin: PluginContext<S>;
}

/**
 * A tool a plugin mounts (`Plugin.tools`, or returned from `beforeReply`): its `execute` gets a
 * {@link PluginToolContext}. Plain tools fit too; a plugin tool does not fit the agent's own `tools`,
 * where no plugin context exists.
 * @example
 * const count = defineTool({
 *   name: 'count', description: 'Counts calls', inputSchema: { type: 'object' },
 *   execute: (_input, ctx: PluginToolContext<number>) => String(ctx.plugin.getState() + 1),
 * });
 */
export type PluginTool<I = any, S = any> = Tool<I, PluginToolContext<S>>;

/** `beforeReply`: a reply starts or resumes. Return tools to mount for this run of the reply. */
export interface BeforeReplyEvent<S = unknown> {
  ctx: PluginContext<S>;
  input: ReplyInput;
  options: ReplyOptions;
}
/** `beforeInference`: before every model call. Return a changed request, or nothing. */
export interface BeforeInferenceEvent<S = unknown> {
  ctx: PluginContext<S>;
  request: InferenceRequest;
}
/** `beforeTool`: before a tool call runs. The first hook that returns a decision wins. */
export interface BeforeToolEvent<S = unknown> {
  ctx: PluginContext<S>;
  toolCall: Readonly<ToolCallBlock>;
  /** `undefined` when the model named an unknown tool (the call fails unless a hook decides). */
  tool: AnyTool | undefined;
  /** The parsed, validated input. */
  input: unknown;
}
/** `afterTool`: a tool result is about to be saved. Return a replacement, or nothing. */
export interface AfterToolEvent<S = unknown> {
  ctx: PluginContext<S>;
  toolCall: Readonly<ToolCallBlock>;
  result: ToolResultBlock;
}
/** `beforeFinish`: the reply would end. Return {@link ContinueReply} to go on instead. */
export interface BeforeFinishEvent<S = unknown> {
  ctx: PluginContext<S>;
  reason: 'completed' | 'exceed_max_iters';
  message: Msg;
}
/** `onPause`: the reply paused; `state` holds everything to resume it. */
export interface PauseEvent<S = unknown> {
  ctx: PluginContext<S>;
  message: Msg;
  awaiting: ToolCallBlock[];
}
/** `onReplyEnd`: the reply ended. */
export interface ReplyEndHookEvent<S = unknown> {
  ctx: PluginContext<S>;
  message: Msg;
  finishedReason: ReplyFinishedReason;
}
/** `onError`: an observer hook failed (the reply goes on). */
export interface HookErrorEvent {
  error: unknown;
  plugin: string;
  hook: string;
}

/**
 * The hooks. `before*`/`after*` are interceptors: they run one after another (plugin `enforce`, then
 * registration order) and may return a replacement or a decision. `on*` are observers: they run
 * concurrently, and their failures are reported to `onError` and the logger, never fatal.
 */
export interface Hooks<S = unknown> {
  beforeReply(event: BeforeReplyEvent<S>): MaybePromise<void | { tools?: PluginTool[] | undefined }>;
  beforeInference(event: BeforeInferenceEvent<S>): MaybePromise<void | InferenceRequest>;
  beforeTool(event: BeforeToolEvent<S>): MaybePromise<void | ToolDecision>;
  afterTool(event: AfterToolEvent<S>): MaybePromise<void | ToolResultBlock>;
  beforeFinish(event: BeforeFinishEvent<S>): MaybePromise<void | ContinueReply>;
  onPause(event: PauseEvent<S>): MaybePromise<void>;
  onReplyEnd(event: ReplyEndHookEvent<S>): MaybePromise<void>;
  onError(event: HookErrorEvent): MaybePromise<void>;
}

/** Names of the interceptor hooks. */
export type InterceptorHookName =
  | 'beforeReply'
  | 'beforeInference'
  | 'beforeTool'
  | 'afterTool'
  | 'beforeFinish';
/** Names of the observer hooks. */
export type ObserverHookName = 'onPause' | 'onReplyEnd' | 'onError';
/** Any hook name. */
export type HookName = keyof Hooks;

/** A hook handler, optionally with a per-hook order (rollup's ObjectHook). */
export type HookHandler<F> = F | { handler: F; order?: 'pre' | 'post' | undefined };

/** What a plugin sees when the agent is built: validate configuration here and read capabilities. */
export interface SetupContext {
  readonly agentName: string;
  readonly model: ChatModel;
  readonly systemPrompt: string;
  readonly logger: Logger;
  /** Names of all plugins of the agent. */
  readonly plugins: readonly string[];
  capability<K extends keyof Capabilities>(name: K): Capabilities[K] | undefined;
}

/** A plugin's persisted slot: how to create it and how to validate a loaded one. */
export interface PluginStateSpec<S> {
  initial: () => S;
  /** Validates a loaded slot (a Standard Schema, or a function that returns it or throws). */
  schema?: StandardSchemaV1<unknown, S> | ((value: unknown) => S) | undefined;
}

/**
 * A plugin: a plain object with a unique name (its state namespace and error attribution), optional
 * dependencies on other plugins (checked when the agent is built), tools, capabilities and hooks.
 */
export interface Plugin<S = unknown> {
  readonly name: string;
  readonly version?: string | undefined;
  /** `pre` plugins' hooks run first, `post` last; otherwise registration order. */
  readonly enforce?: 'pre' | 'post' | undefined;
  /** Plugins that must be installed too (by name). */
  readonly dependencies?: readonly string[];
  readonly state?: PluginStateSpec<S>;
  /**
   * Tools mounted for every reply; their `execute` gets this plugin's context as `ctx.plugin`
   * ({@link definePlugin} checks that their state type is this plugin's).
   */
  readonly tools?: readonly PluginTool[];
  /** Capabilities this plugin provides to others. */
  readonly provides?: Partial<Capabilities> | undefined;
  /**
   * The per-reply option keys this plugin reads. A reply passed a plugin option core knows of
   * (`structuredSchema`) that no installed plugin lists fails with a `ConfigError` before it starts,
   * instead of silently ignoring it.
   */
  readonly replyOptions?: readonly string[] | undefined;
  /** Called once when the agent is built, after every plugin's capabilities are registered. */
  setup?(ctx: SetupContext): void;
  /** The hooks; each receives one event whose `ctx` is this plugin's `PluginContext<S>`. */
  readonly hooks?: { [K in HookName]?: HookHandler<Hooks<S>[K]> };
}

/**
 * Identity function for plugin type inference: `S` comes from `state.initial` and types every hook's
 * `ctx`; the plugin's tools must expect that same state (`PluginToolContext<S>`) or no plugin at all.
 */
export function definePlugin<S>(
  plugin: Plugin<S> & { readonly tools?: readonly PluginTool<any, S>[] },
): Plugin<S> {
  return plugin;
}

/** A falsy value, a plugin, or a nested list of them (so `plugins: [cond && p()]` works). */
export type PluginOption = Plugin<any> | false | null | undefined | readonly PluginOption[];
