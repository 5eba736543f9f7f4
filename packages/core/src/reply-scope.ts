import type { ActiveReply, AgentCore } from './agent-core';
import type { ContentBlock, HintBlock, ToolCallBlock } from './blocks';
import type { Checkpointer } from './checkpointer';
import type { AgentEvent } from './events';
import { newId } from './ids';
import type { JSONObject, JSONValue } from './json';
import type { ModelChunk, ModelRequest, ToolSchema } from './model';
import { countRequestTokens } from './model-turn';
import { createMsg, type Msg } from './msg';
import { now } from './now';
import { limitedChunks, openModelStream, streamModel } from './open-model-stream';
import type { Plugin, PluginContext } from './plugin';
import { ReplyPluginContext } from './plugin-context';
import { applyEvent } from './replay-events';
import type { EventSink } from './reply-stream';
import type { AgentState } from './state';
import type { AnyTool } from './tool';
import { toolSchemas } from './tool-input';
import { emptyUsage, normalizeUsage } from './usage';

/**
 * What a running reply holds and what acts on it besides the loop: its message and tools, the events it
 * records and streams, the plugin contexts made for it, and what those contexts reach — hints, custom
 * events, a replaced context (compression), an early finish. `ReplyRun` (`reply-loop.ts`) adds the
 * orchestration on top; the turns take it as an `ActiveReply`.
 */
export class ReplyScope implements ActiveReply {
  readonly controller = new AbortController();
  readonly signal = this.controller.signal;
  readonly state: AgentState;
  msg!: Msg;
  /** The agent's tools, copied only when a plugin mounts reply-scoped ones. */
  tools: ReadonlyMap<string, AnyTool>;
  toolOwners: ReadonlyMap<string, Plugin<any>>;
  readonly callIds = new Set<string>();
  readonly compressedBlocks: ContentBlock[] = [];
  contextReplaced = false;
  /** Set when the run is over (ended or paused): a plugin context kept past it no longer records events. */
  closed = false;
  checkpointer: Checkpointer | undefined;
  readonly startedHere = new Set<string>();
  private mountedSchemas: ToolSchema[] | undefined;
  private pluginContexts: Map<Plugin<any>, PluginContext> | undefined;

  constructor(
    readonly core: AgentCore,
    signal: AbortSignal | undefined,
    readonly sink?: EventSink<AgentEvent>,
  ) {
    this.state = core.state;
    this.tools = core.tools;
    this.toolOwners = core.toolOwners;
    if (signal) {
      if (signal.aborted) this.controller.abort(signal.reason);
      else signal.addEventListener('abort', () => this.controller.abort(signal.reason), { once: true });
    }
  }

  record(event: AgentEvent): void {
    applyEvent(this.msg, event);
    this.sink?.push(event);
  }

  publish(event: AgentEvent): void {
    this.sink?.push(event);
  }

  /** Streams the message as it stands: a recovered reply restarts from its checkpoint (`REPLY_SNAPSHOT`). */
  protected publishSnapshot(): void {
    const message = structuredClone(this.msg);
    this.publish({ type: 'REPLY_SNAPSHOT', replyId: message.id, message, createdAt: now() });
  }

  /** Forgets the per-message bookkeeping after ending a stopped reply, before a new one starts. */
  protected forgetMessage(): void {
    this.callIds.clear();
    this.startedHere.clear();
    this.compressedBlocks.length = 0;
  }

  private scan = { msg: undefined as Msg | undefined, from: 0 };
  /**
   * Tool calls of the reply that are not finished. Scans only past the prefix already known to be
   * finished (a finished call never reopens), so a long reply does not rescan its history each step.
   */
  openCalls(): ToolCallBlock[] {
    const content = this.msg.content;
    if (this.scan.msg !== this.msg) this.scan = { msg: this.msg, from: 0 };
    const open: ToolCallBlock[] = [];
    for (let i = this.scan.from; i < content.length; i++) {
      const b = content[i]!;
      if (b.type === 'tool_call' && b.state !== 'finished') open.push(b);
      else if (open.length === 0) this.scan.from = i + 1;
    }
    return open;
  }

  /** Mounts a tool a plugin returned from `beforeReply`, for this run only. */
  protected mount(tool: AnyTool, plugin: Plugin<any>): void {
    if (this.tools === this.core.tools) {
      this.tools = new Map(this.core.tools);
      this.toolOwners = new Map(this.core.toolOwners);
    }
    (this.tools as Map<string, AnyTool>).set(tool.name, tool);
    (this.toolOwners as Map<string, Plugin<any>>).set(tool.name, plugin);
  }

  toolSchemas(): ToolSchema[] {
    // The agent's own schemas are built once per agent; reply-scoped tools make a list of this run's.
    if (this.tools === this.core.tools)
      return (this.core.toolSchemas ??= toolSchemas(this.core.tools.values()));
    return (this.mountedSchemas ??= toolSchemas(this.tools.values()));
  }

  /** The context `plugin` gets in this run, in its hooks and its tools: made on first use. */
  pluginContext(plugin: Plugin<any>): PluginContext {
    this.pluginContexts ??= new Map();
    let ctx = this.pluginContexts.get(plugin);
    if (!ctx) this.pluginContexts.set(plugin, (ctx = new ReplyPluginContext(this.core, plugin, this)));
    return ctx;
  }

  get toolList(): readonly AnyTool[] {
    return [...this.tools.values()];
  }

  countState(): number {
    return countRequestTokens(this.core, this.toolSchemas());
  }

  addHint(hint: HintBlock['hint'], source: string | null, streamed: boolean): HintBlock {
    const event: AgentEvent = {
      type: 'HINT_BLOCK',
      replyId: this.msg.id,
      blockId: newId(),
      source,
      hint: typeof hint === 'string' ? hint : structuredClone(hint),
      createdAt: now(),
    };
    if (streamed) this.record(event);
    else applyEvent(this.msg, event);
    return this.msg.content[this.msg.content.length - 1] as HintBlock;
  }

  finishReply(result?: {
    reason?: 'completed' | 'exceed_max_iters';
    structuredOutput?: unknown;
    text?: string;
  }): void {
    this.state.reply!.finish = {
      structuredOutput: (result?.structuredOutput ?? null) as JSONValue,
      ...(result?.reason ? { reason: result.reason } : {}),
      ...(typeof result?.text === 'string' ? { text: result.text } : {}),
    };
  }

  emitCustom(name: string, value: JSONObject): void {
    this.publish({ type: 'CUSTOM', replyId: this.msg.id, name, value });
  }

  replaceContext({ summary, context }: { summary: AgentState['summary']; context: Msg[] }): void {
    const state = this.state;
    state.summary = summary;
    state.context = context;
    this.contextReplaced = true;
    const kept = context.find((m) => m.id === this.msg.id);
    // Blocks of this reply that the compression summarised away still belong to what the reply
    // produced: the returned message keeps them (the state keeps only the kept part).
    const keys = new Set(kept?.content.map(blockKey));
    for (const b of this.msg.content) if (!keys.has(blockKey(b))) this.compressedBlocks.push(b);
    // The reply goes on in the kept part, or in a fresh message with its id when none was kept. Its usage
    // is the sum of the MODEL_CALL_END events so far, whatever the compression did to the copy it kept:
    // every change to the reply message travels as an event.
    const usage = this.msg.usage;
    if (kept) this.msg = kept;
    else {
      this.msg = createMsg({
        role: 'assistant',
        name: this.core.name,
        content: [],
        id: this.msg.id,
        createdAt: this.msg.createdAt,
      });
      state.context.push(this.msg);
    }
    this.msg.usage = usage;
  }

  /**
   * A plugin's model call (`ctx.streamModel`, e.g. a compression summary) with the agent's retries and
   * fallback. While the run goes on it is a model call of the reply: `MODEL_CALL_START`/`MODEL_CALL_END`
   * (naming the plugin) are streamed and its usage is added to the reply message. A context kept past its
   * run only streams the call.
   */
  async *streamModel(plugin: Plugin<any>, request: ModelRequest): AsyncGenerator<ModelChunk> {
    if (this.closed) return yield* streamModel(this.core, request);
    const { iterator, first, model } = await openModelStream(this.core, request);
    const replyId = this.msg.id;
    const source = { plugin: plugin.name };
    this.publish({ type: 'MODEL_CALL_START', replyId, modelName: model.name, ...source, createdAt: now() });
    let usage = emptyUsage();
    let finishedReason: 'completed' | 'interrupted' | 'error' = 'interrupted';
    try {
      // The limit holds for a plugin's calls too: a summary is a response of the model like any other.
      for await (const chunk of limitedChunks(iterator, first, this.core.limits.maxResponseChars)) {
        if (chunk?.type === 'usage') usage = normalizeUsage(chunk.usage);
        yield chunk;
      }
      finishedReason = 'completed';
    } catch (error) {
      if (!request.signal.aborted) finishedReason = 'error';
      throw error;
    } finally {
      // Also when the caller stops reading early (`interrupted`): the usage so far was spent.
      if (!this.closed)
        this.record({ type: 'MODEL_CALL_END', replyId, usage, finishedReason, ...source, createdAt: now() });
    }
  }
}

/** Identifies a block within a message (a call and its result share an id, not a type). */
function blockKey(block: ContentBlock): string {
  return `${block.type}:${block.id}`;
}
