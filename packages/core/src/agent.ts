import { resolveLimits } from './agent-limits';
import type { AgentOptions } from './agent-options';
import { AgentkitError } from './errors/agentkit-error';
import { ConfigError } from './errors/config-error';
import { StateError } from './errors/state-error';
import type { AgentEvent } from './events';
import { HookDriver } from './hook-driver';
import { pluginSet } from './plugin-set';
import type { JSONValue } from './json';
import type { ChatModel, ModelChunk, ModelRequest, TokenCountInput } from './model';
import { streamModel } from './open-model-stream';
import { toLogger } from './logger';
import type { Msg } from './msg';
import type { Logger, Plugin, PluginOption, ReplyOptions, SetupContext } from './plugin';
import { type AgentInput, normalizeInput } from './reply-input';
import type { AgentCore } from './agent-core';
import { countRequestTokens } from './model-turn';
import { ReplyRun } from './reply-loop';
import { type EventSink, ReplyStream } from './reply-stream';
import { isStandardSchema } from './standard-schema';
import { type AgentState, createAgentState, parseAgentState } from './state';
import { calibratedCount } from './token-calibration';
import { TokenCounter } from './token-count';
import { checkTool } from './tool-input';
import type { AnyTool } from './tool';
import { toolSchemas } from './tool-input';
import { thrownText } from './thrown-text';

export type { AgentInput } from './reply-input';

/** Options of {@link Agent.replyStream}. */
export interface ReplyStreamOptions<S = unknown> extends ReplyOptions<S> {
  /** Yield the final (or paused) message after the events. */
  yieldFinalMsg?: boolean | undefined;
}

function flattenPlugins(
  options: readonly PluginOption[] | undefined,
  out: Plugin<any>[] = [],
): Plugin<any>[] {
  for (const p of options ?? []) {
    if (!p) continue;
    if (Array.isArray(p)) flattenPlugins(p, out);
    else out.push(p as Plugin<any>);
  }
  return out;
}

/**
 * The agent: a reason–act reply loop around a model, tools and plugins. All it knows lives in
 * {@link Agent.state} (plain JSON), so a reply paused here can be resumed by a new `Agent` in another
 * process.
 * @example
 * const agent = new Agent({ name: 'helper', systemPrompt: 'Be brief.', model, tools: [add] });
 * const msg = await agent.reply('What is 2 + 3?');
 * console.log(getText(msg));
 */
export class Agent {
  /** The agent's name. */
  readonly name: string;
  /** The model used for replies. */
  readonly model: ChatModel;
  private readonly core: AgentCore;
  private running = false;
  /** Messages observed while a reply ran, added to the context when it ends. */
  private observed: Msg[] | undefined;

  constructor(options: AgentOptions) {
    if (typeof options?.name !== 'string' || options.name === '')
      throw new ConfigError("Agent option 'name' must be a non-empty string.", { field: 'name' });
    if (!options.model || typeof options.model.stream !== 'function')
      throw new ConfigError("Agent option 'model' must be a ChatModel (an object with a stream() method).", {
        field: 'model',
      });
    const maxIters = options.maxIters ?? 50;
    if (!Number.isInteger(maxIters) || maxIters < 1)
      throw new ConfigError("Agent option 'maxIters' must be an integer ≥ 1.", { field: 'maxIters' });
    const logger = toLogger(options.logger);
    const plugins = flattenPlugins(options.plugins);

    const set = pluginSet(plugins);
    // The agent's own tools come first; without any, the plugin set's tools are shared as they are.
    let tools = set.tools;
    if (options.tools?.length) {
      const own = new Map<string, AnyTool>();
      for (const tool of [...options.tools, ...set.tools.values()]) {
        if (own.has(tool.name))
          throw new ConfigError(`Two tools are named '${tool.name}'.`, { field: 'tools' });
        checkTool(tool);
        own.set(tool.name, tool);
      }
      tools = own;
    }
    const capabilities = set.capabilities;

    const state = options.state === undefined ? createAgentState() : parseAgentState(options.state);
    for (const p of plugins) {
      if (!p.state) continue;
      const slot = state.plugins[p.name];
      state.plugins[p.name] = (slot === undefined ? p.state.initial() : validateSlot(p, slot)) as JSONValue;
    }

    this.name = options.name;
    this.model = options.model;
    this.core = {
      name: options.name,
      systemPrompt: options.systemPrompt ?? '',
      model: options.model,
      models: options.fallbackModel ? [options.model, options.fallbackModel] : [options.model],
      tools,
      toolOwners: set.owners,
      plugins,
      driver: new HookDriver(plugins, logger, set.handlers),
      state,
      counter: new TokenCounter(options.model),
      tokens: { calibrate: false, last: undefined },
      toolSchemas: undefined,
      summaryLead: undefined,
      lastReply: undefined,
      maxIters,
      limits: resolveLimits(options.limits),
      retry: { maxRetries: 2, initialDelayMs: 500, maxDelayMs: 10_000, ...options.modelRetry },
      logger,
      capabilities,
    };

    const setup: SetupContext = {
      agentName: this.name,
      model: this.model,
      systemPrompt: this.core.systemPrompt,
      logger,
      plugins: set.names,
      capability: (name) => capabilities[name],
    };
    for (const p of plugins) {
      try {
        p.setup?.(setup);
      } catch (error) {
        if (AgentkitError.isInstance(error)) throw error;
        throw new ConfigError(`Plugin '${p.name}' failed in setup: ${thrownText(error)}`, { cause: error });
      }
    }
  }

  /**
   * The live state: plain JSON. Persist it (`JSON.stringify`, a session store) after a reply; pass it
   * to `new Agent({ state })` to continue anywhere.
   */
  get state(): AgentState {
    return this.core.state;
  }

  /** The system prompt. */
  get systemPrompt(): string {
    return this.core.systemPrompt;
  }

  /** True while a reply runs (an agent runs one reply at a time). */
  get isReplying(): boolean {
    return this.running;
  }

  /** The logger the agent and its plugins report to. */
  get logger(): Logger {
    return this.core.logger;
  }

  /**
   * Counts tokens with the agent's counter (the model's `countTokens` or core's estimate, cached per
   * message). Without `input`: the next model request as the agent would send it now (system prompt,
   * summary, context, the agent's and plugins' tools), anchored on the input tokens the provider reported
   * for the last request when the context has not been replaced since.
   */
  countTokens(input?: TokenCountInput): number {
    if (input) return this.core.counter.count(input);
    const core = this.core;
    core.toolSchemas ??= toolSchemas(core.tools.values());
    return calibratedCount(core.tokens, core.state, () => countRequestTokens(core, core.toolSchemas!));
  }

  /**
   * Streams one model call outside a reply (a summary, a classification) with the agent's retries and
   * fallback model. Inside hooks use `ctx.streamModel`, which also stops when the reply is interrupted.
   */
  streamModel(
    request: Omit<ModelRequest, 'signal'> & { signal?: AbortSignal | undefined },
  ): AsyncGenerator<ModelChunk> {
    return streamModel(this.core, { ...request, signal: request.signal ?? new AbortController().signal });
  }

  /** The agent's plugins, flattened, in the order they were given. */
  get plugins(): readonly Plugin<any>[] {
    return this.core.plugins;
  }

  /** The tools of the agent and its plugins (reply-scoped tools are not listed). */
  get tools(): readonly AnyTool[] {
    return [...this.core.tools.values()];
  }

  /**
   * Runs a reply and returns its message: everything the reply produced (hints, thinking, text, tool
   * calls and results across iterations), usage summed over its model calls, `finishedAt` and the
   * finished reason. A paused reply returns the waiting message with `finishedReason: null`. Errors end
   * the reply with `finishedReason: 'error'` and an `ErrorInfo` instead of throwing; invalid input
   * (new input while paused, a resume that matches nothing) throws a typed error before anything runs.
   */
  async reply<S = unknown>(input?: AgentInput, options: ReplyOptions<S> = {}): Promise<Msg<S>> {
    const msg = await this.exclusive(() => new ReplyRun(this.core, input, options).run());
    if (msg) return msg as Msg<S>;
    throw new StateError(
      'There is no reply to return: a user interrupt was sent to an agent that never replied.',
    );
  }

  /**
   * Runs a reply and yields its events as they happen; with `yieldFinalMsg`, the final (or paused)
   * message comes last. A paused reply's stream ends without `REPLY_END`. Breaking out of the loop stops
   * the reply like an interrupt (running tools see the signal) and waits until it has ended cleanly.
   * Without `yieldFinalMsg` every item is an {@link AgentEvent}.
   */
  replyStream<S = unknown>(
    input: AgentInput | undefined,
    options: ReplyStreamOptions<S> & { yieldFinalMsg: true },
  ): AsyncGenerator<AgentEvent | Msg<S>, void>;
  replyStream<S = unknown>(
    input?: AgentInput,
    options?: ReplyStreamOptions<S> & { yieldFinalMsg?: false | undefined },
  ): AsyncGenerator<AgentEvent, void>;
  replyStream<S = unknown>(
    input?: AgentInput,
    options?: ReplyStreamOptions<S>,
  ): AsyncGenerator<AgentEvent | Msg<S>, void>;
  replyStream<S = unknown>(
    input?: AgentInput,
    options: ReplyStreamOptions<S> = {},
  ): AsyncGenerator<AgentEvent | Msg<S>, void> {
    let run: ReplyRun | undefined;
    return new ReplyStream<AgentEvent | Msg<S>, Msg | null>(
      (sink) =>
        this.exclusive(() => {
          run = new ReplyRun(this.core, input, options, sink as EventSink<AgentEvent>);
          return run.run();
        }),
      (reason) => run?.controller.abort(reason),
      (msg) => (options.yieldFinalMsg && msg ? (msg as Msg<S>) : undefined),
    );
  }

  /**
   * Runs `fn` while no reply can start (an agent runs one reply at a time; a second one would interleave
   * with the first's state). For work on `state` between replies, e.g. a manual compression. Throws
   * `StateError` when a reply is running.
   */
  async runExclusive<T>(fn: () => Promise<T>): Promise<T> {
    return this.exclusive(fn);
  }

  private async exclusive<T>(run: () => Promise<T>): Promise<T> {
    if (this.running)
      throw new StateError(
        'This agent is already running a reply; wait for it to end (one reply at a time per agent).',
      );
    this.running = true;
    try {
      return await run();
    } finally {
      this.running = false;
      const observed = this.observed;
      this.observed = undefined;
      if (observed) this.core.state.context.push(...observed);
    }
  }

  /**
   * Adds messages to the context without replying (e.g. another agent's output). While a reply runs they
   * wait until it ends (or pauses) and then follow its message, so the history never shows them before
   * turns the model produced without having seen them.
   */
  async observe(msgs: Msg | readonly Msg[]): Promise<void> {
    const normalized = normalizeInput(msgs as AgentInput);
    if ('event' in normalized) throw new ConfigError('observe() takes messages, not events.');
    if (this.running) (this.observed ??= []).push(...normalized.messages);
    else this.core.state.context.push(...normalized.messages);
  }
}

function validateSlot(plugin: Plugin<any>, slot: unknown): unknown {
  const schema = plugin.state?.schema;
  if (!schema) return slot;
  try {
    if (typeof schema === 'function') return schema(slot);
    if (isStandardSchema(schema)) {
      const result = schema['~standard'].validate(slot);
      if (result instanceof Promise) throw new Error('async schemas are not supported for plugin state');
      if (result.issues) throw new Error(result.issues.map((i) => i.message).join('; '));
      return result.value;
    }
  } catch (error) {
    throw new StateError(
      `The state slot of plugin '${plugin.name}' is invalid: ${(error as Error).message}`,
      { cause: error },
    );
  }
  return slot;
}
