import type { AgentCore, RunHandle } from './agent-core';
import type { HintBlock } from './blocks';
import type { Capabilities } from './capabilities';
import type { JSONObject, JSONValue } from './json';
import type { ModelChunk, ModelRequest, TokenCountInput } from './model';
import type { Msg } from './msg';
import type { Plugin, PluginContext } from './plugin';
import type { AgentState } from './state';
import { calibratedCount } from './token-calibration';

/**
 * The context one plugin gets in one reply run — in its hooks and in its tools alike — made on first use
 * per run and plugin, like Hono's per-request `Context`. Its members live on the prototype, so a context
 * costs one small object per run and plugin, not a set of closures; and it stays bound to its own run, so
 * work a hook or tool leaves running after its reply ended never acts on the next one.
 */
export class ReplyPluginContext implements PluginContext {
  constructor(
    private readonly core: AgentCore,
    private readonly plugin: Plugin<any>,
    private readonly run: RunHandle,
  ) {}

  get pluginName(): string {
    return this.plugin.name;
  }
  get agentName(): string {
    return this.core.name;
  }
  get model() {
    return this.core.model;
  }
  get systemPrompt(): string {
    return this.core.systemPrompt;
  }
  get state(): AgentState {
    return this.run.state;
  }
  get reply() {
    return this.run.state.reply!;
  }
  get maxIters(): number {
    return this.core.maxIters;
  }
  get signal(): AbortSignal {
    return this.run.signal;
  }
  get logger() {
    return this.core.logger;
  }
  get tools() {
    return this.run.toolList;
  }
  getState<T = unknown>(): T {
    return this.run.state.plugins[this.plugin.name] as T;
  }
  setState(value: unknown): void {
    this.run.state.plugins[this.plugin.name] = value as JSONValue;
  }
  getReplyData<T = unknown>(): T | undefined {
    return this.run.state.reply!.data[this.plugin.name] as T | undefined;
  }
  setReplyData(value: unknown): void {
    this.run.state.reply!.data[this.plugin.name] = value as JSONValue;
  }
  addHint(hint: HintBlock['hint'], options?: { source?: string | null; emit?: boolean }): HintBlock {
    const source = options?.source === undefined ? this.plugin.name : options.source;
    return this.run.addHint(hint, source, options?.emit !== false);
  }
  finishReply(result?: {
    reason?: 'completed' | 'exceed_max_iters' | undefined;
    structuredOutput?: unknown | undefined;
    text?: string | undefined;
  }) {
    this.run.finishReply(result);
  }
  emit(name: string, value: JSONObject): void {
    this.run.emitCustom(name, value);
  }
  replaceContext(next: { summary: AgentState['summary']; context: Msg[] }): void {
    this.run.replaceContext(next);
  }
  streamModel(request: Omit<ModelRequest, 'signal'> & { signal?: AbortSignal }): AsyncIterable<ModelChunk> {
    return this.run.streamModel(this.plugin, { ...request, signal: request.signal ?? this.run.signal });
  }
  countTokens(input?: TokenCountInput): number {
    const core = this.core;
    return input
      ? core.counter.count(input)
      : calibratedCount(core.tokens, core.state, () => this.run.countState());
  }
  capability<K extends keyof Capabilities>(key: K): Capabilities[K] | undefined {
    return this.core.capabilities[key];
  }
}
