import type {
  ContentBlock,
  DataBlock,
  HintBlock,
  TextBlock,
  ToolCallBlock,
  ToolResultBlock,
  ToolResultState,
} from './blocks';
import type { Capabilities } from './capabilities';
import { classifyError, type ErrorInfo } from './error-info';
import { ConfigError } from './errors/config-error';
import { ModelError } from './errors/model-error';
import type { AgentEvent, ExternalExecutionResultEvent, UserConfirmResultEvent } from './events';
import type { HookDriver, HookScope } from './hook-driver';
import { newId } from './ids';
import { now } from './now';
import type { JSONObject, JSONValue } from './json';
import type { ChatModel, ModelChunk, ModelRequest, ToolChoice, ToolSchema } from './model';
import { ModelStream } from './model-stream';
import { createMsg, type Msg, type ReplyFinishedReason } from './msg';
import { type ModelPlan, openModelStream } from './open-model-stream';
import { anyRuleMatches, decidePermission, defaultSuggestedRules } from './permissions';
import type {
  ContinueReply,
  InferenceRequest,
  Logger,
  Plugin,
  PluginContext,
  ReplyInput,
  ReplyOptions,
  ToolDecision,
} from './plugin';
import { type AgentInput, awaitingCalls, checkResume, findReplyMsg, normalizeInput } from './reply-input';
import { ReplyPausedError, ResumeMismatchError } from './errors/input-errors';
import { applyEvent } from './replay-events';
import type { EventSink } from './reply-stream';
import { pluginContext, type RunHandle, runPluginContext } from './plugin-context';
import type { AgentState } from './state';
import type { TokenCounter } from './token-count';
import type { Tool, ToolChunk, ToolContext, ToolResult } from './tool';
import { parseToolInput, toolJsonSchema } from './tool-input';

/** The parts of an agent a reply run needs. */
export interface AgentCore extends ModelPlan {
  name: string;
  systemPrompt: string;
  model: ChatModel;
  tools: ReadonlyMap<string, Tool>;
  toolOwners: ReadonlyMap<string, Plugin<any>>;
  plugins: readonly Plugin<any>[];
  driver: HookDriver;
  state: AgentState;
  counter: TokenCounter;
  /** Calibration of token counts by what the provider reported for the last request. */
  tokens: TokenCalibration;
  /** The schemas of `tools`, built on first use. */
  toolSchemas?: ToolSchema[];
  maxIters: number;
  logger: Logger;
  capabilities: Partial<Capabilities>;
  /** Each plugin's context, made once per agent (see `pluginContext`). */
  pluginContexts: Map<Plugin<any>, PluginContext>;
  /** The running reply, or the last one: what plugin contexts act on. */
  run?: RunHandle;
}

const INTERRUPTED_TEXT = '<system-reminder>The tool call has been interrupted by the user.</system-reminder>';
const FAILED_TEXT =
  '<system-reminder>The tool call was not executed because the reply failed.</system-reminder>';
const deniedText = (name: string) =>
  `<system-reminder>The execution of tool "${name}" is denied by user!</system-reminder>`;
const notFoundText = (name: string) => `ToolNotFoundError: The tool named '${name}' doesn't exist.`;

type CallOutcome = 'done' | 'paused' | 'interrupted';

function resultOf(msg: Msg, id: string): ToolResultBlock | undefined {
  for (let i = msg.content.length - 1; i >= 0; i--) {
    const b = msg.content[i]!;
    if (b.type === 'tool_result' && b.id === id) return b;
  }
  return undefined;
}

/**
 * One run of a reply: a new reply, a continuation, or the resumption of a paused one. Every event is
 * applied to the persisted reply message with the same reducer clients use (`applyEvent`) and, when a
 * consumer streams, pushed to it at that same moment — so the stream order is the order of the changes,
 * and replaying the stream rebuilds exactly the persisted message. `run()` resolves to the reply message,
 * or `null` for an interrupt sent to an idle agent.
 */
export class ReplyRun implements RunHandle, HookScope {
  readonly controller = new AbortController();
  readonly signal = this.controller.signal;
  readonly state: AgentState;
  private msg!: Msg;
  /** The agent's tools, copied only when a plugin mounts reply-scoped ones. */
  private tools: ReadonlyMap<string, Tool>;
  /** Which plugin mounted a tool, so its tools get that plugin's context. */
  private toolOwners: ReadonlyMap<string, Plugin<any>>;
  private toolSchemas: ToolSchema[] | undefined;
  private contextReplaced = false;
  /** Blocks of this reply that a compression removed from the context (see `replaceContext`). */
  private readonly compressedBlocks: ContentBlock[] = [];
  private finalCandidate = false;
  /** Every tool-call id of this reply, including calls a compression moved out of the message. */
  private callIds = new Set<string>();
  private toolContexts: Map<Plugin<any>, PluginContext> | undefined;
  private nextHint: string | undefined;
  private nextToolChoice: ToolChoice | undefined;

  constructor(
    private readonly core: AgentCore,
    private readonly input: AgentInput,
    private readonly options: ReplyOptions,
    private readonly sink?: EventSink<AgentEvent>,
  ) {
    this.state = core.state;
    this.tools = core.tools;
    this.toolOwners = core.toolOwners;
    const outer = options.signal;
    if (outer) {
      if (outer.aborted) this.controller.abort(outer.reason);
      else outer.addEventListener('abort', () => this.controller.abort(outer.reason), { once: true });
    }
  }

  /** The input was accepted: this run owns `msg`, and plugin contexts act on it from now on. */
  private start(msg: Msg): void {
    this.msg = msg;
    // Taken now, before a hook may compress earlier calls out of the message (a resumed reply has some).
    for (const b of msg.content) if (b.type === 'tool_call') this.callIds.add(b.id);
    this.core.run = this;
  }

  /** Applies an event to the reply message and hands it to the consumer. */
  private emit(event: AgentEvent): void {
    applyEvent(this.msg, event);
    this.sink?.push(event);
  }

  /** Hands an event to the consumer without applying it (already applied, or not about the message). */
  private send(event: AgentEvent): void {
    this.sink?.push(event);
  }

  async run(): Promise<Msg | null> {
    checkReplyOptions(this.options, this.core.plugins);
    const normalized = normalizeInput(this.input);
    let replyInput: ReplyInput;
    if ('event' in normalized) {
      const event = normalized.event;
      const msg = findReplyMsg(this.state);
      const awaiting = awaitingCalls(msg);
      if (event.type === 'USER_INTERRUPT') {
        if (!msg || awaiting.length === 0) return msg ?? null; // nothing paused: a silent no-op
        this.start(msg);
        return this.end('interrupted');
      }
      if (!msg || awaiting.length === 0)
        throw new ResumeMismatchError(`Received ${event.type} but no reply is paused.`);
      checkResume(event, msg);
      this.start(msg);
      replyInput = { kind: 'resume', event };
    } else {
      const paused = awaitingCalls(findReplyMsg(this.state));
      if (paused.length) throw new ReplyPausedError(paused.map((c) => c.id));
      this.state.context.push(...normalized.messages);
      const replyId = newId();
      this.state.reply = { id: replyId, iteration: 0, data: {}, finish: null };
      this.start(createMsg({ role: 'assistant', name: this.core.name, content: [], id: replyId }));
      this.state.context.push(this.msg);
      replyInput = normalized.messages.length
        ? { kind: 'new', messages: normalized.messages }
        : { kind: 'continue' };
      this.send({
        type: 'REPLY_START',
        replyId,
        sessionId: this.state.sessionId,
        name: this.core.name,
        role: 'assistant',
        createdAt: this.msg.createdAt,
      });
    }

    try {
      if (this.core.driver.has('beforeReply')) {
        const mounted = await this.core.driver.collect('beforeReply', this, (ctx) => ({
          ctx,
          input: replyInput,
          options: this.options,
        }));
        for (const { plugin, value } of mounted)
          for (const tool of value.tools ?? []) this.mount(tool, plugin);
      }
      if (replyInput.kind === 'resume') {
        const outcome = await this.resume(
          replyInput.event as UserConfirmResultEvent | ExternalExecutionResultEvent,
        );
        if (outcome === 'interrupted') return this.end('interrupted');
      }
      return await this.loop();
    } catch (error) {
      if (this.signal.aborted) return this.end('interrupted');
      this.core.logger.error(`agentkit: reply '${this.msg.id}' of agent '${this.core.name}' failed`, error);
      return this.end('error', classifyError(error));
    }
  }

  /** Mounts a tool a plugin returned from `beforeReply`, for this run only. */
  private mount(tool: Tool, plugin: Plugin<any>): void {
    if (this.tools === this.core.tools) {
      this.tools = new Map(this.core.tools);
      this.toolOwners = new Map(this.core.toolOwners);
    }
    (this.tools as Map<string, Tool>).set(tool.name, tool);
    (this.toolOwners as Map<string, Plugin<any>>).set(tool.name, plugin);
  }

  private async loop(): Promise<Msg> {
    const reply = this.state.reply!;
    // A safety net against a loop that makes no progress (a state no path resolves): never spin forever.
    const passLimit = 4 * this.core.maxIters + 20;
    for (let pass = 0; ; pass++) {
      if (this.signal.aborted) return this.end('interrupted');
      if (pass > passLimit)
        return this.end('error', {
          type: 'internal',
          message: `The reply made no progress after ${pass} steps; it was stopped.`,
        });
      const open = this.openCalls();
      const awaiting = open.filter((c) => c.state === 'asking' || c.state === 'submitted');
      const executable = open.filter(
        (c) =>
          (c.state === 'allowed' && !resultOf(this.msg, c.id)) ||
          (c.state === 'pending' && awaiting.length === 0),
      );
      if (executable.length) {
        if ((await this.act(executable)) === 'interrupted') return this.end('interrupted');
        if (this.openCalls().length === 0) reply.iteration++;
        continue;
      }
      if (awaiting.length) return this.pause(awaiting);
      if (reply.finish) return this.end(reply.finish.reason ?? 'completed');
      if (this.finalCandidate || reply.iteration >= this.core.maxIters) {
        // A final answer after the limit (a plugin kept the reply going) still ends exceed_max_iters.
        const reason =
          this.finalCandidate && reply.iteration <= this.core.maxIters ? 'completed' : 'exceed_max_iters';
        const decision = await this.beforeFinish(reason);
        if (!decision) return this.end(reason);
        this.finalCandidate = false;
        this.nextHint = decision.hint;
        this.nextToolChoice = decision.toolChoice;
      }
      if ((await this.reason()) === 'interrupted') return this.end('interrupted');
      if (this.openCalls().length === 0) reply.iteration++;
    }
  }

  private scan = { msg: undefined as Msg | undefined, from: 0 };
  /**
   * Tool calls of the reply that are not finished. Scans only past the prefix already known to be
   * finished (a finished call never reopens), so a long reply does not rescan its history each step.
   */
  private openCalls(): ToolCallBlock[] {
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

  // ── reasoning ────────────────────────────────────────────────────────────────────────────────

  private summaryCache: { summary: AgentState['summary']; msg: Msg } | undefined;
  /** The compression summary as the user message that leads the model input, or `undefined`. */
  private summaryMsg(): Msg | undefined {
    const summary = this.state.summary;
    if (summary === '' || (Array.isArray(summary) && summary.length === 0)) return undefined;
    if (this.summaryCache?.summary !== summary) {
      const content: Array<TextBlock | DataBlock> =
        typeof summary === 'string' ? [{ type: 'text', id: 'summary', text: summary }] : summary;
      this.summaryCache = {
        summary,
        msg: createMsg({ role: 'user', name: 'user', content, id: 'summary', createdAt: '' }),
      };
    }
    return this.summaryCache.msg;
  }

  /** The model input after the system prompt; the context itself when there is no summary (no copy per call). */
  private buildMessages(): readonly Msg[] {
    const lead = this.summaryMsg();
    return lead ? [lead, ...this.state.context] : this.state.context;
  }

  private schemas(): ToolSchema[] {
    // The agent's own schemas are built once per agent; reply-scoped tools make a list of this run's.
    if (this.tools === this.core.tools) return (this.core.toolSchemas ??= schemasOf(this.core.tools));
    return (this.toolSchemas ??= schemasOf(this.tools));
  }

  /** Tokens of the next request as built from the state (incremental; see `TokenCounter.countContext`). */
  countState(): number {
    return this.core.counter.countContext(
      this.core.systemPrompt,
      this.schemas(),
      this.summaryMsg(),
      this.state.context,
    );
  }

  private async reason(): Promise<'done' | 'interrupted'> {
    if (this.nextHint !== undefined) {
      this.addHint(this.nextHint, 'agentkit', true);
      this.nextHint = undefined;
    }
    let request: InferenceRequest = {
      systemPrompt: this.core.systemPrompt,
      messages: this.buildMessages(),
      tools: this.schemas(),
      toolChoice: this.nextToolChoice ?? 'auto',
    };
    this.nextToolChoice = undefined;
    const built = request;
    if (this.core.driver.has('beforeInference'))
      request = await this.core.driver.waterfall(
        'beforeInference',
        this,
        request,
        (ctx, given) => {
          this.contextReplaced = false;
          return { ctx, request: given };
        },
        (returned, given) => {
          const next = returned || given;
          // A hook that replaced the context (compression) without supplying messages gets them rebuilt.
          // Hints need nothing: the request holds the reply message itself.
          return this.contextReplaced && next.messages === given.messages
            ? { ...next, messages: this.buildMessages() }
            : next;
        },
      );
    if (this.state.reply!.finish) return 'done'; // a hook ended the reply: no model call
    if (this.signal.aborted) return 'interrupted';
    const asBuilt =
      request.messages === built.messages &&
      request.systemPrompt === built.systemPrompt &&
      request.tools === built.tools;
    return this.callModel({ ...request, signal: this.signal }, asBuilt);
  }

  private async callModel(request: ModelRequest, asBuilt: boolean): Promise<'done' | 'interrupted'> {
    const replyId = this.msg.id;
    const tokens = this.core.tokens;
    // Only once someone counts tokens is the estimate of each request kept, to calibrate later counts.
    const estimate = tokens.calibrate ? (asBuilt ? this.countState() : this.core.counter.count(request)) : 0;
    const stream = new ModelStream(
      this.msg,
      (e) => this.emit(e),
      this.sink ? (e) => this.send(e) : undefined,
      this.callIds,
    );
    let started = false;
    const start = (model: ChatModel) => {
      started = true;
      this.send({ type: 'MODEL_CALL_START', replyId, modelName: model.name, createdAt: now() });
    };
    let finishedReason: 'completed' | 'interrupted' | 'error' = 'completed';
    try {
      const { iterator, first, model } = await openModelStream(this.core, request);
      start(model);
      if (!first.done) {
        stream.handle(first.value);
        const sink = this.sink;
        // A streaming consumer pulls the model itself (one hop per delta); otherwise the loop reads it.
        if (sink?.pump) await sink.pump(iterator, (chunk) => stream.handle(chunk as ModelChunk));
        else for (let r = await iterator.next(); !r.done; r = await iterator.next()) stream.handle(r.value);
      }
      if (!stream.produced)
        throw new ModelError('upstream', `The model '${model.name}' returned an empty response.`, {
          retryable: false,
        });
    } catch (error) {
      if (!this.signal.aborted) {
        if (started) {
          stream.close();
          this.emit({
            type: 'MODEL_CALL_END',
            replyId,
            usage: stream.usage,
            finishedReason: 'error',
            createdAt: now(),
          });
        }
        throw error;
      }
      finishedReason = 'interrupted';
      if (!started) start(this.core.model);
    }
    stream.close();
    this.emit({ type: 'MODEL_CALL_END', replyId, usage: stream.usage, finishedReason, createdAt: now() });
    if (finishedReason === 'interrupted') return 'interrupted';
    if (tokens.calibrate && stream.usage.inputTokens > 0)
      tokens.last = {
        context: this.state.context,
        summary: this.state.summary,
        estimate,
        reported: stream.usage.inputTokens,
      };
    this.finalCandidate = !stream.sawToolCall && stream.sawText;
    return 'done';
  }

  // ── acting ───────────────────────────────────────────────────────────────────────────────────

  private async act(calls: ToolCallBlock[]): Promise<CallOutcome> {
    // Consecutive concurrency-safe calls (and unknown tools) run together; the rest one by one.
    const runs: Array<{ concurrent: boolean; calls: ToolCallBlock[] }> = [];
    for (const call of calls) {
      const tool = this.tools.get(call.name);
      const concurrent = !tool || tool.concurrencySafe === true;
      const last = runs[runs.length - 1];
      if (last?.concurrent && concurrent) last.calls.push(call);
      else runs.push({ concurrent, calls: [call] });
    }
    for (const run of runs) {
      let outcomes: CallOutcome[];
      if (run.concurrent && run.calls.length > 1) {
        const asked: ToolCallBlock[] = [];
        const settled = await Promise.allSettled(run.calls.map((c) => this.executeCall(c, asked)));
        const failed = settled.find((r) => r.status === 'rejected');
        if (failed) throw (failed as PromiseRejectedResult).reason;
        outcomes = settled.map((r) => (r as PromiseFulfilledResult<CallOutcome>).value);
      } else {
        outcomes = [];
        for (const call of run.calls) {
          const outcome = await this.executeCall(call, undefined);
          outcomes.push(outcome);
          if (outcome !== 'done') break;
        }
      }
      if (outcomes.includes('interrupted') || this.signal.aborted) return 'interrupted';
      if (outcomes.includes('paused')) return 'paused';
    }
    return 'done';
  }

  private async executeCall(
    call: ToolCallBlock,
    askedInRun: ToolCallBlock[] | undefined,
  ): Promise<CallOutcome> {
    const replyId = this.msg.id;
    const tool = this.tools.get(call.name);
    let input: unknown;
    if (tool) {
      const parsed = await parseToolInput(tool, call.input);
      if (!parsed.ok) return this.failCall(call, parsed.message, 'error');
      input = parsed.value;
    } else {
      try {
        input = call.input.trim() === '' ? {} : JSON.parse(call.input);
      } catch {
        input = call.input;
      }
    }
    let replaced = false;
    let decision: ToolDecision | undefined;
    if (call.state === 'allowed') decision = { decision: 'allow' };
    else {
      if (this.core.driver.has('beforeTool'))
        decision = await this.core.driver.firstDecision(
          'beforeTool',
          this,
          (ctx) => ({ ctx, toolCall: call, tool, input }),
          (returned) => {
            if (!returned) return undefined;
            // An input without a decision replaces the input the next hooks (and the tool) see.
            if ('input' in returned && returned.input !== undefined) {
              input = returned.input;
              replaced = true;
            }
            return returned.decision === undefined ? undefined : returned;
          },
        );
      if (!tool) {
        // An unknown tool runs nowhere: a hook may deny it or hand it to the caller; otherwise it fails.
        if (decision?.decision === 'deny') return this.failCall(call, decision.message, 'denied');
        if (decision?.decision !== 'external') return this.failCall(call, notFoundText(call.name), 'error');
      }
      decision ??= decidePermission(this.state.permissions, tool!, input);
    }
    // In a concurrent run, a call covered by a rule already offered for an earlier call waits silently.
    if (
      decision.decision === 'ask' &&
      askedInRun?.some((c) => c.name === call.name && anyRuleMatches(c.suggestedRules ?? [], tool!, input))
    )
      return 'paused';
    // The call keeps the input it runs with: the persisted call, the events and a resumed run agree.
    const newInput = replaced ? JSON.stringify(input) : undefined;
    if (newInput !== undefined) call.input = newInput;
    const withInput = newInput !== undefined ? { input: newInput } : {};
    switch (decision.decision) {
      case 'deny':
        return this.failCall(call, decision.message, 'denied', withInput);
      case 'ask': {
        const rules = decision.suggestedRules ?? defaultSuggestedRules(tool!);
        askedInRun?.push({ ...call, suggestedRules: rules });
        this.emit({
          type: 'REQUIRE_USER_CONFIRM',
          replyId,
          toolCalls: [{ ...call, state: 'asking', suggestedRules: structuredClone(rules) }],
        });
        return 'paused';
      }
    }
    this.emit({
      type: 'TOOL_RESULT_START',
      replyId,
      toolCallId: call.id,
      toolCallName: call.name,
      ...withInput,
    });
    if (decision.decision === 'external' || tool?.external) {
      this.emit({
        type: 'REQUIRE_EXTERNAL_EXECUTION',
        replyId,
        toolCalls: [{ ...call, state: 'submitted' }],
      });
      return 'paused';
    }
    let state: ToolResultState = 'success';
    let metadata: JSONObject = {};
    try {
      if (!tool!.execute) throw new Error(`Tool '${call.name}' has no execute function.`);
      if (this.signal.aborted) throw this.signal.reason;
      const returned = tool!.execute(input, this.toolContext(call));
      // A tool that ignores the signal must not hold the interrupted reply open.
      const value = returned instanceof Promise ? await raceAbort(returned, this.signal) : returned;
      const result = isAsyncIterable(value)
        ? toToolResult(await this.streamTool(call.id, value), true)
        : toToolResult(value, false);
      if (result.state) state = result.state;
      if (result.metadata) metadata = result.metadata;
      if (result.output !== undefined) this.emitOutput(call.id, result.output);
    } catch (error) {
      // Only the reply's own signal is an interrupt; a tool's own timeout or AbortError is a tool error.
      if (this.signal.aborted) {
        this.emitOutput(call.id, INTERRUPTED_TEXT);
        state = 'interrupted';
      } else {
        this.emitOutput(call.id, error instanceof Error ? error.message : String(error));
        state = 'error';
      }
    }
    if (this.signal.aborted) state = 'interrupted';
    await this.finishResult(call, state, metadata);
    return state === 'interrupted' ? 'interrupted' : 'done';
  }

  private async streamTool(callId: string, iterable: AsyncIterable<ToolChunk>): Promise<unknown> {
    const it = iterable[Symbol.asyncIterator]();
    for (;;) {
      const r = await raceAbort(it.next(), this.signal);
      if (r.done) return r.value;
      this.emitOutput(callId, [r.value]);
      // A consumer far behind a fast tool: wait for it rather than queue without bound.
      const behind = this.sink?.backpressure();
      if (behind) await raceAbort(behind, this.signal);
      if (this.signal.aborted) {
        await it.return?.();
        throw this.signal.reason;
      }
    }
  }

  /** Emits output parts as result deltas; applying them builds the result block in the message. */
  private emitOutput(callId: string, parts: ToolResult['output'] | ToolChunk[]): void {
    const replyId = this.msg.id;
    const list = typeof parts === 'string' ? [parts] : parts;
    for (const part of list) {
      if (typeof part === 'string' || part.type === 'text') {
        const delta = typeof part === 'string' ? part : part.text;
        if (delta !== '') this.emit({ type: 'TOOL_RESULT_TEXT_DELTA', replyId, toolCallId: callId, delta });
      } else if (part.type === 'data') {
        this.emit({
          type: 'TOOL_RESULT_DATA_DELTA',
          replyId,
          toolCallId: callId,
          blockId: 'id' in part && part.id ? part.id : newId(),
          mediaType: part.source.mediaType,
          ...(part.source.type === 'url' ? { url: part.source.url } : { data: part.source.data }),
          ...(part.name !== undefined ? { name: part.name } : {}),
        });
      }
    }
  }

  /**
   * Runs `afterTool` hooks over the streamed result and emits TOOL_RESULT_END, which carries the saved
   * output only when a hook changed it (the deltas always carry the tool's full output). Hooks get a copy,
   * so even a hook that edits in place cannot change the message behind the stream's back.
   */
  private async finishResult(
    call: ToolCallBlock,
    state: ToolResultState,
    metadata: JSONObject,
  ): Promise<void> {
    const streamed = resultOf(this.msg, call.id)?.output ?? [];
    let output = streamed;
    if (this.core.driver.has('afterTool')) {
      const saved: ToolResultBlock = {
        type: 'tool_result',
        id: call.id,
        name: call.name,
        output: structuredClone(streamed),
        state,
        metadata,
      };
      ({ output, state, metadata } = await this.core.driver.waterfall(
        'afterTool',
        this,
        saved,
        (ctx, result) => ({ ctx, toolCall: call, result }),
      ));
    }
    const same = output === streamed || JSON.stringify(output) === JSON.stringify(streamed);
    this.emit({
      type: 'TOOL_RESULT_END',
      replyId: this.msg.id,
      toolCallId: call.id,
      state,
      metadata,
      ...(same ? {} : { output }),
    });
  }

  /** A call that fails before running: unknown tool, bad input, denied. */
  private async failCall(
    call: ToolCallBlock,
    message: string,
    state: 'error' | 'denied',
    withInput: { input?: string } = {},
  ): Promise<CallOutcome> {
    this.emit({
      type: 'TOOL_RESULT_START',
      replyId: this.msg.id,
      toolCallId: call.id,
      toolCallName: call.name,
      ...withInput,
    });
    this.emitOutput(call.id, message);
    await this.finishResult(call, state, {});
    return 'done';
  }

  private toolContext(call: ToolCallBlock): ToolContext {
    const state = this.state;
    const owner = this.toolOwners.get(call.name);
    return {
      ...(owner ? { plugin: this.toolPluginContext(owner) } : {}),
      signal: this.signal,
      toolCallId: call.id,
      replyId: this.msg.id,
      state,
      getPluginState: <T>(plugin: string) => state.plugins[plugin] as T,
      setPluginState: (plugin, value) => {
        state.plugins[plugin] = value as JSONValue;
      },
      finishReply: (result) => this.finishReply(result),
    };
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

  // ── resume, pause, end ───────────────────────────────────────────────────────────────────────

  private async resume(event: UserConfirmResultEvent | ExternalExecutionResultEvent): Promise<CallOutcome> {
    const calls = new Map(awaitingCalls(this.msg).map((c) => [c.id, c]));
    if (event.type === 'USER_CONFIRM_RESULT') {
      applyEvent(this.msg, event);
      for (const r of event.confirmResults) {
        const call = calls.get(r.toolCall.id)!;
        if (r.confirmed) {
          for (const rule of r.rules ?? []) this.state.permissions.allow.push({ ...rule, behavior: 'allow' });
        } else await this.failCall(call, deniedText(call.name), 'denied');
      }
      return 'done';
    }
    for (const r of event.executionResults) {
      const call = calls.get(r.id)!;
      this.emitOutput(call.id, r.output);
      await this.finishResult(call, r.state, r.metadata ?? {});
    }
    return 'done';
  }

  private async pause(awaiting: ToolCallBlock[]): Promise<Msg> {
    // The paused message keeps changing when the reply resumes: hand out a snapshot.
    const msg = JSON.parse(JSON.stringify(this.msg)) as Msg;
    if (this.core.driver.has('onPause'))
      await this.core.driver.observe('onPause', this, (ctx) => ({ ctx, message: msg, awaiting }));
    return msg;
  }

  private async beforeFinish(reason: 'completed' | 'exceed_max_iters'): Promise<ContinueReply | undefined> {
    if (!this.core.driver.has('beforeFinish')) return undefined;
    return this.core.driver.firstDecision(
      'beforeFinish',
      this,
      (ctx) => ({ ctx, reason, message: this.msg }),
      (returned) => (returned?.continue ? returned : undefined),
    );
  }

  /** Ends the reply: closes unanswered calls (interrupt/error), emits REPLY_END, runs observers. */
  private async end(reason: ReplyFinishedReason, error: ErrorInfo | null = null): Promise<Msg> {
    const replyId = this.msg.id;
    if (reason === 'interrupted' || reason === 'error') {
      for (const call of this.msg.content.filter(
        (b): b is ToolCallBlock => b.type === 'tool_call' && b.state !== 'finished',
      )) {
        if (!resultOf(this.msg, call.id))
          this.emit({ type: 'TOOL_RESULT_START', replyId, toolCallId: call.id, toolCallName: call.name });
        const text = reason === 'interrupted' ? INTERRUPTED_TEXT : FAILED_TEXT;
        this.emit({ type: 'TOOL_RESULT_TEXT_DELTA', replyId, toolCallId: call.id, delta: text });
        this.emit({
          type: 'TOOL_RESULT_END',
          replyId,
          toolCallId: call.id,
          state: reason === 'interrupted' ? 'interrupted' : 'error',
          metadata: {},
        });
      }
    }
    if (reason === 'exceed_max_iters') this.emit({ type: 'EXCEED_MAX_ITERS', replyId, name: this.core.name });
    const finish = this.state.reply?.finish;
    // The closing text of a reply ended through finishReply (e.g. a placeholder next to structured output).
    if (finish?.text && reason === (finish.reason ?? 'completed')) {
      const blockId = newId();
      this.emit({ type: 'TEXT_BLOCK_START', replyId, blockId });
      this.emit({ type: 'TEXT_BLOCK_DELTA', replyId, blockId, delta: finish.text });
      this.emit({ type: 'TEXT_BLOCK_END', replyId, blockId });
    }
    this.emit({
      type: 'REPLY_END',
      replyId,
      sessionId: this.state.sessionId,
      finishedReason: reason,
      error,
      structuredOutput: reason === 'completed' ? (finish?.structuredOutput ?? null) : null,
      createdAt: now(),
    });
    // An ended reply's message no longer changes: it is returned as persisted, not copied. Its content
    // array was grown block by block; a compact copy saves the slack for as long as the state lives.
    this.msg.content = this.msg.content.slice();
    const msg = this.compressedBlocks.length
      ? { ...this.msg, content: [...this.compressedBlocks, ...this.msg.content] }
      : this.msg;
    if (this.core.driver.has('onReplyEnd'))
      await this.core.driver.observe('onReplyEnd', this, (ctx) => ({
        ctx,
        message: msg,
        finishedReason: reason,
      }));
    return msg;
  }

  // ── plugin plumbing ──────────────────────────────────────────────────────────────────────────

  addHint(hint: HintBlock['hint'], source: string | null, emit: boolean): HintBlock {
    const event: AgentEvent = {
      type: 'HINT_BLOCK',
      replyId: this.msg.id,
      blockId: newId(),
      source,
      hint: typeof hint === 'string' ? hint : structuredClone(hint),
      createdAt: now(),
    };
    if (emit) this.emit(event);
    else applyEvent(this.msg, event);
    return this.msg.content[this.msg.content.length - 1] as HintBlock;
  }

  /** The context `plugin`'s hooks get (see `HookScope`). */
  pluginContext(plugin: Plugin<any>): PluginContext {
    return pluginContext(this.core, plugin);
  }

  /** The context a plugin's tools get: bound to this run, made once per run and plugin when needed. */
  private toolPluginContext(plugin: Plugin<any>): PluginContext {
    this.toolContexts ??= new Map();
    let ctx = this.toolContexts.get(plugin);
    if (!ctx) this.toolContexts.set(plugin, (ctx = runPluginContext(this.core, plugin, this)));
    return ctx;
  }

  // ── what plugin contexts reach (RunHandle) ───────────────────────────────────────────────────

  get toolList(): readonly Tool[] {
    return [...this.tools.values()];
  }

  emitCustom(name: string, value: JSONObject): void {
    this.send({ type: 'CUSTOM', replyId: this.msg.id, name, value });
  }

  replaceContext({ summary, context }: { summary: AgentState['summary']; context: Msg[] }): void {
    const state = this.state;
    state.summary = summary;
    state.context = context;
    this.contextReplaced = true;
    const reply = context.find((m) => m.id === this.msg.id);
    // Blocks of this reply that the compression summarised away still belong to what the reply
    // produced: the returned message keeps them (the state keeps only the kept part).
    const kept = new Set(reply?.content.map(blockKey));
    for (const b of this.msg.content) if (!kept.has(blockKey(b))) this.compressedBlocks.push(b);
    if (reply) this.msg = reply;
    else {
      // The reply's message was compressed away entirely: continue it in a fresh message with its id.
      this.msg = createMsg({
        role: 'assistant',
        name: this.core.name,
        content: [],
        id: this.msg.id,
        createdAt: this.msg.createdAt,
      });
      state.context.push(this.msg);
    }
  }
}

/** Reply options core types for plugins; each must be read by an installed plugin. */
const PLUGIN_REPLY_OPTIONS = ['structuredSchema'] as const;

/** Throws `ConfigError` for a plugin reply option that no installed plugin reads. */
function checkReplyOptions(options: ReplyOptions, plugins: readonly Plugin<any>[]): void {
  for (const key of PLUGIN_REPLY_OPTIONS) {
    if (options[key] === undefined || options[key] === null) continue;
    if (plugins.some((p) => p.replyOptions?.includes(key))) continue;
    throw new ConfigError(
      `The reply option '${key}' needs a plugin that reads it (structuredOutput() from @agentkit/structured-output), and none is installed.`,
      { field: key },
    );
  }
}

/** The tool schemas the model sees. */
export function schemasOf(tools: ReadonlyMap<string, Tool>): ToolSchema[] {
  return [...tools.values()].map((t) => ({
    name: t.name,
    description: t.description,
    inputSchema: toolJsonSchema(t),
  }));
}

/** Identifies a block within a message (a call and its result share an id, not a type). */
function blockKey(block: ContentBlock): string {
  return `${block.type}:${block.id}`;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<ToolChunk> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/** Reads a tool's return value. After streaming, only a {@link ToolResult}-shaped value adds anything. */
function toToolResult(value: unknown, streamed: boolean): Partial<ToolResult> {
  const isResult =
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    ('output' in value || (streamed && ('state' in value || 'metadata' in value)));
  if (isResult) return value as Partial<ToolResult>;
  if (streamed || value === undefined) return {};
  return { output: typeof value === 'string' ? value : JSON.stringify(value) };
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/**
 * The model's last reported input tokens, next to core's estimate of that same request and the context
 * it was made from. A replaced context (compression, or anyone assigning `state.context`) makes the
 * report useless.
 */
export interface TokenCalibration {
  calibrate: boolean;
  last: { context: Msg[]; summary: AgentState['summary']; estimate: number; reported: number } | undefined;
}

/**
 * Counts the next request: the provider's last reported input tokens plus the estimate of what was added
 * since (more exact than estimating everything), or the plain estimate when there is no usable report.
 */
export function calibratedCount(
  core: Pick<AgentCore, 'tokens' | 'state'>,
  estimateNow: () => number,
): number {
  core.tokens.calibrate = true;
  const estimate = estimateNow();
  const last = core.tokens.last;
  if (!last || last.context !== core.state.context || last.summary !== core.state.summary) return estimate;
  return Math.max(0, last.reported + estimate - last.estimate);
}
