import type { HintBlock } from './blocks';
import type { JSONObject, JSONValue } from './json';
import type { Msg } from './msg';
import type { PluginContext, Plugin } from './plugin';
import { type AgentCore, calibratedCount } from './reply-loop';
import type { AgentState } from './state';
import { streamModel } from './open-model-stream';
import type { TokenCountInput } from './model';
import type { Tool } from './tool';

/** What a plugin context reaches through to the running (or last) reply. `ReplyRun` implements it. */
export interface RunHandle {
  readonly state: AgentState;
  readonly signal: AbortSignal;
  readonly toolList: readonly Tool[];
  addHint(hint: HintBlock['hint'], source: string | null, emit: boolean): HintBlock;
  finishReply(result?: {
    reason?: 'completed' | 'exceed_max_iters' | undefined;
    structuredOutput?: unknown | undefined;
    text?: string | undefined;
  }): void;
  emitCustom(name: string, value: JSONObject): void;
  replaceContext(next: { summary: AgentState['summary']; context: Msg[] }): void;
  countState(): number;
}

/**
 * The context `plugin` gets in its hooks: one object per agent and plugin, made on first use. Its
 * reply-scoped members read `core.run`, the agent's current (or last) reply, so a reply costs no new
 * closures per plugin — an agent runs one reply at a time, and hooks run only while their reply does.
 */
export function pluginContext(core: AgentCore, plugin: Plugin<any>): PluginContext {
  let ctx = core.pluginContexts.get(plugin);
  if (!ctx) {
    ctx = makePluginContext(core, plugin, () => core.run!);
    core.pluginContexts.set(plugin, ctx);
  }
  return ctx;
}

/**
 * A plugin context bound to one run: for a plugin's tools, which an interrupt may leave running after
 * their reply ended — they must keep seeing that reply (its aborted signal), never the next one.
 */
export function runPluginContext(core: AgentCore, plugin: Plugin<any>, run: RunHandle): PluginContext {
  return makePluginContext(core, plugin, () => run);
}

function makePluginContext(core: AgentCore, plugin: Plugin<any>, run: () => RunHandle): PluginContext {
  const name = plugin.name;
  return {
    pluginName: name,
    agentName: core.name,
    get model() {
      return core.model;
    },
    get systemPrompt() {
      return core.systemPrompt;
    },
    get state() {
      return run().state;
    },
    get reply() {
      return run().state.reply!;
    },
    maxIters: core.maxIters,
    get signal() {
      return run().signal;
    },
    logger: core.logger,
    getState: <T>() => run().state.plugins[name] as T,
    setState: (value) => {
      run().state.plugins[name] = value as JSONValue;
    },
    getReplyData: <T>() => run().state.reply!.data[name] as T | undefined,
    setReplyData: (value) => {
      run().state.reply!.data[name] = value as JSONValue;
    },
    addHint: (hint, options) =>
      run().addHint(hint, options?.source === undefined ? name : options.source, options?.emit !== false),
    finishReply: (result) => run().finishReply(result),
    emit: (event, value) => run().emitCustom(event, value),
    replaceContext: (next) => run().replaceContext(next),
    streamModel: (request) => streamModel(core, { ...request, signal: request.signal ?? run().signal }),
    countTokens: (input?: TokenCountInput) =>
      input ? core.counter.count(input) : calibratedCount(core, () => run().countState()),
    capability: (key) => core.capabilities[key],
    get tools() {
      return run().toolList;
    },
  };
}
