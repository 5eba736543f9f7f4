import type { AgentCore, RunHandle } from './agent-core';
import type { JSONValue } from './json';
import type { TokenCountInput } from './model';
import { streamModel } from './open-model-stream';
import type { Plugin, PluginContext } from './plugin';
import { calibratedCount } from './token-calibration';

/**
 * The context `plugin` gets in its hooks: one object per agent and plugin, made on first use. Its
 * reply-scoped members read `core.currentReply`, the agent's current (or last) reply, so a reply costs no new
 * closures per plugin — an agent runs one reply at a time, and hooks run only while their reply does.
 */
export function pluginContext(core: AgentCore, plugin: Plugin<any>): PluginContext {
  let ctx = core.pluginContexts.get(plugin);
  if (!ctx) {
    ctx = makePluginContext(core, plugin, () => core.currentReply!);
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
      input ? core.counter.count(input) : calibratedCount(core.tokens, core.state, () => run().countState()),
    capability: (key) => core.capabilities[key],
    get tools() {
      return run().toolList;
    },
  };
}
