import type {
  DataBlock,
  HintBlock,
  TextBlock,
  ToolCallBlock,
  ToolResultBlock,
  ToolResultState,
} from './blocks';
import type { Capabilities } from './capabilities';
import { classifyError, type ErrorInfo } from './error-info';
import { InvalidInputError, ReplyPausedError, ResumeMismatchError } from './errors/input-errors';
import { PluginHookError } from './errors/plugin-hook-error';
import type { AgentEvent, ExternalExecutionResultEvent, InputEvent, UserConfirmResultEvent } from './events';
import { isInputEvent } from './events';
import type { HookDriver } from './hook-driver';
import { newId } from './ids';
import type { JSONObject, JSONValue } from './json';
import type { ChatModel, ModelChunk, ModelRequest, TokenCountInput, ToolChoice, ToolSchema } from './model';
import { createMsg, type Msg, type ReplyFinishedReason, validateMsg } from './msg';
import { anyRuleMatches, decidePermission, defaultSuggestedRules } from './permissions';
import type {
  ContinueReply,
  HookName,
  Hooks,
  InferenceRequest,
  Logger,
  Plugin,
  PluginContext,
  ReplyInput,
  ReplyOptions,
  ToolDecision,
} from './plugin';
import { ModelStream } from './model-stream';
import { openModelStream, streamModel, type ModelPlan } from './open-model-stream';
import { applyEvent } from './replay-events';
import type { AgentState } from './state';
import type { TokenCounter } from './token-count';
import type { Tool, ToolChunk, ToolContext, ToolResult } from './tool';
import { parseToolInput, toolJsonSchema } from './tool-input';

/** What `reply` accepts: messages, a string (a user message), an input event, or nothing (continue). */
export type AgentInput = Msg | readonly Msg[] | string | InputEvent | null | undefined;

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
  maxIters: number;
  logger: Logger;
  capabilities: Partial<Capabilities>;
}

const INTERRUPTED_TEXT = '<system-reminder>The tool call has been interrupted by the user.</system-reminder>';
const FAILED_TEXT =
  '<system-reminder>The tool call was not executed because the reply failed.</system-reminder>';
const deniedText = (name: string) =>
  `<system-reminder>The execution of tool "${name}" is denied by user!</system-reminder>`;

type CallOutcome = 'done' | 'paused' | 'interrupted';

// Timestamps are minted per lifecycle event, not per delta; formatting is cached per millisecond.
let lastMs = 0;
let lastIso = '';
const now = () => {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
};
const isAbort = (e: unknown, signal: AbortSignal) =>
  signal.aborted ||
  (e instanceof Error && (e.name === 'AbortError' || (e as { code?: unknown }).code === 'ABORT_ERR'));

/**
 * Normalises `reply` input into messages or an input event, validating messages: user or assistant
 * role only, no tool calls, tool results or thinking (those come from the agent itself).
 */
export function normalizeInput(input: AgentInput): { messages: Msg[] } | { event: InputEvent } {
  if (input === null || input === undefined) return { messages: [] };
  if (typeof input === 'string')
    return { messages: [createMsg({ role: 'user', name: 'user', content: input })] };
  if (isInputEvent(input)) return { event: input };
  const list = Array.isArray(input) ? input : [input as Msg];
  const messages = list.map((m) => {
    if (typeof m !== 'object' || m === null || !Array.isArray((m as Msg).content))
      throw new InvalidInputError(
        'Input must be messages (e.g. userMsg("…")), a string, an input event, or null.',
      );
    if (m.role === 'system')
      throw new InvalidInputError(
        "Input messages cannot have role 'system'; set the agent's systemPrompt instead.",
      );
    for (const b of m.content)
      if (b.type === 'tool_call' || b.type === 'tool_result' || b.type === 'thinking')
        throw new InvalidInputError(
          `Input messages cannot contain '${b.type}' blocks; only the agent produces them.`,
        );
    validateMsg(m);
    return structuredClone(m) as Msg;
  });
  return { messages };
}

/** The message of the current reply in the context (looked up by id, so observed messages do not hide it). */
export function findReplyMsg(state: AgentState): Msg | undefined {
  const id = state.reply?.id;
  if (!id) return undefined;
  for (let i = state.context.length - 1; i >= 0; i--)
    if (state.context[i]!.id === id) return state.context[i];
  return undefined;
}

function resultOf(msg: Msg, id: string): ToolResultBlock | undefined {
  for (let i = msg.content.length - 1; i >= 0; i--) {
    const b = msg.content[i]!;
    if (b.type === 'tool_result' && b.id === id) return b;
  }
  return undefined;
}

/**
 * The tool calls a paused reply waits for: `asking` (needs the user's confirmation) and `submitted`
 * (needs an external result). Empty when the agent is not paused.
 * @example
 * for (const call of awaitingToolCalls(agent.state)) if (call.state === 'asking') askUser(call);
 */
export function awaitingToolCalls(state: AgentState): ToolCallBlock[] {
  return awaitingCalls(findReplyMsg(state));
}

/** Calls the paused reply waits for: asking ones, and submitted ones without a final result. */
export function awaitingCalls(msg: Msg | undefined): ToolCallBlock[] {
  if (!msg) return [];
  return msg.content.filter(
    (b): b is ToolCallBlock => b.type === 'tool_call' && (b.state === 'asking' || b.state === 'submitted'),
  );
}

function unfinishedCalls(msg: Msg): ToolCallBlock[] {
  return msg.content.filter((b): b is ToolCallBlock => b.type === 'tool_call' && b.state !== 'finished');
}

/**
 * One run of a reply: a new reply, a continuation, or the resumption of a paused one. A generator of
 * events that returns the reply message (or `null` for an interrupt sent to an idle agent).
 * Every event is applied to the persisted reply message with the same reducer clients use, so replaying
 * the stream rebuilds exactly the persisted message.
 */
export class ReplyRun {
  private readonly state: AgentState;
  private readonly controller = new AbortController();
  private readonly signal = this.controller.signal;
  private msg!: Msg;
  private tools: Map<string, Tool>;
  /** Which plugin mounted a tool, so its tools get that plugin's context. */
  private readonly toolOwners: Map<string, Plugin<any>>;
  private toolSchemas: ToolSchema[] | undefined;
  private readonly contexts = new Map<Plugin<any>, PluginContext>();
  private readonly pending: AgentEvent[] = [];
  private revision = 0;
  private finalCandidate = false;
  private nextHint: string | undefined;
  private nextToolChoice: ToolChoice | undefined;

  constructor(
    private readonly core: AgentCore,
    private readonly input: AgentInput,
    private readonly options: ReplyOptions,
  ) {
    this.state = core.state;
    this.tools = new Map(core.tools);
    this.toolOwners = new Map(core.toolOwners);
    const outer = options.signal;
    if (outer) {
      if (outer.aborted) this.controller.abort(outer.reason);
      else outer.addEventListener('abort', () => this.controller.abort(outer.reason), { once: true });
    }
  }

  /**
   * While calls run concurrently, their events go here in the order they are applied (their generators'
   * own yields are ignored), so the stream order always equals the order of changes to the message.
   */
  private sink: { queue: AgentEvent[]; notify: () => void } | undefined;

  /** Applies an event to the reply message and returns it for yielding. */
  private apply<E extends AgentEvent>(event: E): E {
    applyEvent(this.msg, event);
    if (this.sink) {
      this.sink.queue.push(event);
      this.sink.notify();
    }
    return event;
  }

  async *run(): AsyncGenerator<AgentEvent, Msg | null, PumpOutcome | undefined> {
    const normalized = normalizeInput(this.input);
    let replyInput: ReplyInput;
    if ('event' in normalized) {
      const event = normalized.event;
      const msg = findReplyMsg(this.state);
      const awaiting = awaitingCalls(msg);
      if (event.type === 'USER_INTERRUPT') {
        if (!msg || awaiting.length === 0) return msg ?? null; // nothing paused: a silent no-op
        this.msg = msg;
        return yield* this.end('interrupted');
      }
      if (!msg || awaiting.length === 0)
        throw new ResumeMismatchError(`Received ${event.type} but no reply is paused.`);
      this.checkResume(event, msg);
      this.msg = msg;
      replyInput = { kind: 'resume', event };
    } else {
      const paused = awaitingCalls(findReplyMsg(this.state));
      if (paused.length) throw new ReplyPausedError(paused.map((c) => c.id));
      this.state.context.push(...normalized.messages);
      const replyId = newId();
      this.state.reply = { id: replyId, iteration: 0, data: {}, finish: null };
      this.msg = createMsg({ role: 'assistant', name: this.core.name, content: [], id: replyId });
      this.state.context.push(this.msg);
      this.revision++;
      replyInput = normalized.messages.length
        ? { kind: 'new', messages: normalized.messages }
        : { kind: 'continue' };
      yield {
        type: 'REPLY_START',
        replyId,
        sessionId: this.state.sessionId,
        name: this.core.name,
        role: 'assistant',
        createdAt: this.msg.createdAt,
      };
    }

    try {
      for (const { plugin, fn } of this.core.driver.get('beforeReply')) {
        const out = await this.intercept(plugin, 'beforeReply', () =>
          fn({ ctx: this.ctx(plugin), input: replyInput, options: this.options }),
        );
        for (const tool of out?.tools ?? []) {
          this.tools.set(tool.name, tool);
          this.toolOwners.set(tool.name, plugin);
        }
        if (this.pending.length) yield* this.flush();
      }
      if (replyInput.kind === 'resume') {
        const outcome = yield* this.resume(
          replyInput.event as UserConfirmResultEvent | ExternalExecutionResultEvent,
        );
        if (outcome === 'interrupted') return yield* this.end('interrupted');
      }
      return yield* this.loop();
    } catch (error) {
      if (isAbort(error, this.signal)) return yield* this.end('interrupted');
      return yield* this.end('error', classifyError(error));
    }
  }

  private async *loop(): AsyncGenerator<AgentEvent, Msg, PumpOutcome | undefined> {
    const reply = this.state.reply!;
    // A safety net against a loop that makes no progress (a state no path resolves): never spin forever.
    const passLimit = 4 * this.core.maxIters + 20;
    for (let pass = 0; ; pass++) {
      if (this.signal.aborted) return yield* this.end('interrupted');
      if (pass > passLimit)
        return yield* this.end('error', {
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
        const outcome = yield* this.act(executable);
        if (outcome === 'interrupted') return yield* this.end('interrupted');
        if (this.openCalls().length === 0) reply.iteration++;
        continue;
      }
      if (awaiting.length) return yield* this.pause(awaiting);
      if (reply.finish) return yield* this.end(reply.finish.reason ?? 'completed');
      if (this.finalCandidate || reply.iteration >= this.core.maxIters) {
        // A final answer after the limit (a plugin kept the reply going) still ends exceed_max_iters.
        const reason =
          this.finalCandidate && reply.iteration <= this.core.maxIters ? 'completed' : 'exceed_max_iters';
        const decision = yield* this.beforeFinish(reason);
        if (!decision) return yield* this.end(reason);
        this.finalCandidate = false;
        this.nextHint = decision.hint;
        this.nextToolChoice = decision.toolChoice;
      }
      const outcome = yield* this.reason();
      if (outcome === 'interrupted') return yield* this.end('interrupted');
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

  private buildMessages(): Msg[] {
    const { summary, context } = this.state;
    if (summary === '' || (Array.isArray(summary) && summary.length === 0)) return context.slice();
    return [this.summaryMsg(summary), ...context];
  }

  private summaryCache: { summary: AgentState['summary']; msg: Msg } | undefined;
  private summaryMsg(summary: AgentState['summary']): Msg {
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

  private schemas(): ToolSchema[] {
    this.toolSchemas ??= [...this.tools.values()].map((t) => ({
      name: t.name,
      description: t.description,
      inputSchema: toolJsonSchema(t),
    }));
    return this.toolSchemas;
  }

  private async *reason(): AsyncGenerator<AgentEvent, 'done' | 'interrupted', PumpOutcome | undefined> {
    if (this.nextHint !== undefined) {
      this.addHint(this.nextHint, 'agentkit', true);
      this.nextHint = undefined;
      if (this.pending.length) yield* this.flush();
    }
    let request: InferenceRequest = {
      systemPrompt: this.core.systemPrompt,
      messages: this.buildMessages(),
      tools: this.schemas(),
      toolChoice: this.nextToolChoice ?? 'auto',
    };
    this.nextToolChoice = undefined;
    for (const { plugin, fn } of this.core.driver.get('beforeInference')) {
      const before = this.revision;
      const given = request;
      const out = await this.intercept(plugin, 'beforeInference', () =>
        fn({ ctx: this.ctx(plugin), request: given }),
      );
      if (out) request = out;
      // A hook that replaced the context (compression) without supplying messages gets them rebuilt.
      if (this.revision !== before && request.messages === given.messages)
        request = { ...request, messages: this.buildMessages() };
      if (this.pending.length) yield* this.flush();
    }
    if (this.state.reply!.finish) return 'done'; // a hook ended the reply: no model call
    return yield* this.callModel({ ...request, signal: this.signal });
  }

  private async *callModel(
    request: ModelRequest,
  ): AsyncGenerator<AgentEvent, 'done' | 'interrupted', PumpOutcome | undefined> {
    const replyId = this.msg.id;
    yield this.apply({
      type: 'MODEL_CALL_START',
      replyId,
      modelName: this.core.model.name,
      createdAt: now(),
    });
    const stream = new ModelStream(this.msg, (e) => this.apply(e));
    // Only once someone counts tokens is the estimate of each request kept, to calibrate later counts.
    const tokens = this.core.tokens;
    const estimate = tokens.calibrate ? this.core.counter.count(request) : 0;
    let interrupted = false;
    try {
      const opened = await openModelStream(this.core, request);
      if (!opened.first.done) {
        stream.handle(opened.first.value);
        if (stream.out.length) yield* drain(stream.out);
        // The driver pulls the rest straight from the model's iterator: one hop per chunk, not one per
        // generator layer between here and the consumer.
        const outcome = yield { [PUMP]: true, iterator: opened.iterator, stream } as unknown as AgentEvent;
        if (outcome?.failed) throw outcome.error;
      }
    } catch (error) {
      if (!isAbort(error, this.signal)) {
        stream.close();
        if (stream.out.length) yield* drain(stream.out);
        throw error;
      }
      interrupted = true;
    }
    stream.close();
    if (stream.out.length) yield* drain(stream.out);
    yield this.apply({
      type: 'MODEL_CALL_END',
      replyId,
      usage: stream.usage,
      finishedReason: interrupted ? 'interrupted' : 'completed',
      createdAt: now(),
    });
    if (interrupted) return 'interrupted';
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

  private async *act(calls: ToolCallBlock[]): AsyncGenerator<AgentEvent, CallOutcome> {
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
        outcomes = yield* this.runConcurrently(run.calls);
      } else {
        outcomes = [];
        for (const call of run.calls) {
          const outcome = yield* this.executeCall(call, undefined);
          outcomes.push(outcome);
          if (outcome !== 'done') break;
        }
      }
      if (outcomes.includes('interrupted') || this.signal.aborted) return 'interrupted';
      if (outcomes.includes('paused')) return 'paused';
    }
    return 'done';
  }

  /** Runs calls in parallel; events stream in the order they happen (completion order across calls). */
  private async *runConcurrently(calls: ToolCallBlock[]): AsyncGenerator<AgentEvent, CallOutcome[]> {
    const queue: AgentEvent[] = [];
    let wake: (() => void) | undefined;
    let done = false;
    this.sink = { queue, notify: () => wake?.() };
    const asked: ToolCallBlock[] = [];
    const drive = async (gen: AsyncGenerator<AgentEvent, CallOutcome>) => {
      for (;;) {
        const r = await gen.next();
        if (r.done) return r.value;
      }
    };
    const all = Promise.allSettled(calls.map((c) => drive(this.executeCall(c, asked))));
    void all.then(() => {
      done = true;
      wake?.();
    });
    try {
      for (;;) {
        while (queue.length) yield queue.shift()!;
        if (done) break;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
      }
    } finally {
      this.sink = undefined;
    }
    const settled = await all;
    const failed = settled.find((r) => r.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
    return settled.map((r) => (r as PromiseFulfilledResult<CallOutcome>).value);
  }

  private async *executeCall(
    call: ToolCallBlock,
    askedInRun: ToolCallBlock[] | undefined,
  ): AsyncGenerator<AgentEvent, CallOutcome> {
    const replyId = this.msg.id;
    const tool = this.tools.get(call.name);
    if (!tool)
      return yield* this.failCall(
        call,
        `ToolNotFoundError: The tool named '${call.name}' doesn't exist.`,
        'error',
      );
    const parsed = await parseToolInput(tool, call.input);
    if (!parsed.ok) return yield* this.failCall(call, parsed.message, 'error');
    let input = parsed.value;
    let decision: ToolDecision | undefined;
    if (call.state === 'allowed') decision = { decision: 'allow' };
    else {
      for (const { plugin, fn } of this.core.driver.get('beforeTool')) {
        const out = await this.intercept(plugin, 'beforeTool', () =>
          fn({ ctx: this.ctx(plugin), toolCall: call, tool, input }),
        );
        if (this.pending.length) yield* this.flush();
        if (!out) continue;
        if (out.decision === undefined) {
          input = out.input;
          continue;
        }
        decision = out;
        break;
      }
      decision ??= decidePermission(this.state.permissions, tool, input);
    }
    if (decision.decision === 'allow' && decision.input !== undefined) input = decision.input;
    switch (decision.decision) {
      case 'deny':
        return yield* this.failCall(call, decision.message, 'denied');
      case 'ask': {
        const rules = decision.suggestedRules ?? defaultSuggestedRules(tool);
        // In a concurrent run, a call covered by a rule already offered for an earlier call waits silently.
        if (
          askedInRun?.some((c) => c.name === call.name && anyRuleMatches(c.suggestedRules ?? [], tool, input))
        )
          return 'paused';
        askedInRun?.push({ ...call, suggestedRules: rules });
        yield this.apply({
          type: 'REQUIRE_USER_CONFIRM',
          replyId,
          toolCalls: [{ ...call, state: 'asking', suggestedRules: structuredClone(rules) }],
        });
        return 'paused';
      }
      case 'external':
        yield this.apply({
          type: 'TOOL_RESULT_START',
          replyId,
          toolCallId: call.id,
          toolCallName: call.name,
        });
        yield this.apply({
          type: 'REQUIRE_EXTERNAL_EXECUTION',
          replyId,
          toolCalls: [{ ...call, state: 'submitted' }],
        });
        return 'paused';
    }
    if (tool.external) {
      yield this.apply({ type: 'TOOL_RESULT_START', replyId, toolCallId: call.id, toolCallName: call.name });
      yield this.apply({
        type: 'REQUIRE_EXTERNAL_EXECUTION',
        replyId,
        toolCalls: [{ ...call, state: 'submitted' }],
      });
      return 'paused';
    }
    yield this.apply({ type: 'TOOL_RESULT_START', replyId, toolCallId: call.id, toolCallName: call.name });
    let state: ToolResultState = 'success';
    let metadata: JSONObject = {};
    try {
      if (!tool.execute) throw new Error(`Tool '${tool.name}' has no execute function.`);
      if (this.signal.aborted) throw this.signal.reason;
      // A tool that ignores the signal must not hold the interrupted reply open.
      const returned = tool.execute(input, this.toolContext(call));
      const value = returned instanceof Promise ? await raceAbort(returned, this.signal) : returned;
      const result = isAsyncIterable(value)
        ? toToolResult(yield* this.streamTool(call.id, value), true)
        : toToolResult(value, false);
      if (result.state) state = result.state;
      if (result.metadata) metadata = result.metadata;
      if (result.output !== undefined) yield* this.emitOutput(call.id, result.output);
    } catch (error) {
      if (isAbort(error, this.signal)) {
        yield* this.emitOutput(call.id, INTERRUPTED_TEXT);
        state = 'interrupted';
      } else {
        yield* this.emitOutput(call.id, error instanceof Error ? error.message : String(error));
        state = 'error';
      }
    }
    if (this.signal.aborted && state !== 'interrupted') state = 'interrupted';
    yield* this.finishResult(call, state, metadata);
    return state === 'interrupted' ? 'interrupted' : 'done';
  }

  private async *streamTool(
    callId: string,
    iterable: AsyncIterable<ToolChunk>,
  ): AsyncGenerator<AgentEvent, unknown> {
    const it = iterable[Symbol.asyncIterator]();
    for (;;) {
      const r = await raceAbort(it.next(), this.signal);
      if (r.done) return r.value;
      yield* this.emitOutput(callId, [r.value]);
      if (this.signal.aborted) {
        await it.return?.();
        throw this.signal.reason ?? new DOMException('Aborted', 'AbortError');
      }
    }
  }

  /** Emits output parts as result deltas; applying them builds the result block in the message. */
  private *emitOutput(callId: string, parts: ToolResult['output'] | ToolChunk[]): Generator<AgentEvent> {
    const replyId = this.msg.id;
    const list = typeof parts === 'string' ? [parts] : parts;
    for (const part of list) {
      if (typeof part === 'string' || part.type === 'text') {
        const delta = typeof part === 'string' ? part : part.text;
        if (delta !== '')
          yield this.apply({ type: 'TOOL_RESULT_TEXT_DELTA', replyId, toolCallId: callId, delta });
      } else if (part.type === 'data') {
        yield this.apply({
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
   * output only when a hook replaced it (the deltas always carry the tool's full output).
   */
  private async *finishResult(
    call: ToolCallBlock,
    state: ToolResultState,
    metadata: JSONObject,
  ): AsyncGenerator<AgentEvent> {
    const streamed = resultOf(this.msg, call.id)?.output ?? [];
    let final: ToolResultBlock = {
      type: 'tool_result',
      id: call.id,
      name: call.name,
      output: streamed.slice(),
      state,
      metadata,
    };
    for (const { plugin, fn } of this.core.driver.get('afterTool')) {
      const given = final;
      const out = await this.intercept(plugin, 'afterTool', () =>
        fn({ ctx: this.ctx(plugin), toolCall: call, result: given }),
      );
      if (out) final = out;
      if (this.pending.length) yield* this.flush();
    }
    const same = final.output.length === streamed.length && final.output.every((b, i) => b === streamed[i]);
    yield this.apply({
      type: 'TOOL_RESULT_END',
      replyId: this.msg.id,
      toolCallId: call.id,
      state: final.state,
      metadata: final.metadata,
      ...(same ? {} : { output: final.output }),
    });
  }

  /** A call that fails before running: unknown tool, bad input, denied. */
  private async *failCall(
    call: ToolCallBlock,
    message: string,
    state: 'error' | 'denied',
  ): AsyncGenerator<AgentEvent, CallOutcome> {
    yield this.apply({
      type: 'TOOL_RESULT_START',
      replyId: this.msg.id,
      toolCallId: call.id,
      toolCallName: call.name,
    });
    yield* this.emitOutput(call.id, message);
    yield* this.finishResult(call, state, {});
    return 'done';
  }

  private toolContext(call: ToolCallBlock): ToolContext {
    const state = this.state;
    const owner = this.toolOwners.get(call.name);
    return {
      ...(owner ? { plugin: this.ctx(owner) } : {}),
      signal: this.signal,
      toolCallId: call.id,
      replyId: this.msg.id,
      state,
      getPluginState: <T>(plugin: string) => state.plugins[plugin] as T,
      setPluginState: (plugin, value) => {
        state.plugins[plugin] = value as JSONValue;
      },
      finishReply: (result) => {
        state.reply!.finish = { structuredOutput: (result.structuredOutput ?? null) as JSONValue };
      },
    };
  }

  // ── resume, pause, end ───────────────────────────────────────────────────────────────────────

  private checkResume(event: UserConfirmResultEvent | ExternalExecutionResultEvent, msg: Msg): void {
    const want = event.type === 'USER_CONFIRM_RESULT' ? 'asking' : 'submitted';
    const ids =
      event.type === 'USER_CONFIRM_RESULT'
        ? event.confirmResults.map((r) => r.toolCall?.id)
        : event.executionResults.map((r) => r.id);
    const waiting = new Set(
      awaitingCalls(msg)
        .filter((c) => c.state === want)
        .map((c) => c.id),
    );
    if (waiting.size === 0)
      throw new ResumeMismatchError(
        `Received ${event.type} but no tool call is ${want === 'asking' ? 'waiting for confirmation' : 'waiting for an external result'}.`,
      );
    const wrong = ids.filter((id) => !waiting.has(id as string));
    if (wrong.length || ids.length === 0)
      throw new ResumeMismatchError(
        `${event.type} names tool calls ${wrong.map((id) => `'${String(id)}'`).join(', ') || '(none)'} that are not ${want}; waiting: ${[...waiting].map((id) => `'${id}'`).join(', ')}.`,
      );
  }

  private async *resume(
    event: UserConfirmResultEvent | ExternalExecutionResultEvent,
  ): AsyncGenerator<AgentEvent, CallOutcome> {
    if (event.type === 'USER_CONFIRM_RESULT') {
      applyEvent(this.msg, event);
      for (const r of event.confirmResults) {
        const call = this.msg.content.find(
          (b): b is ToolCallBlock => b.type === 'tool_call' && b.id === r.toolCall.id,
        )!;
        if (r.confirmed) {
          for (const rule of r.rules ?? []) this.state.permissions.allow.push({ ...rule, behavior: 'allow' });
        } else yield* this.failCall(call, deniedText(call.name), 'denied');
      }
      return 'done';
    }
    for (const r of event.executionResults) {
      const call = this.msg.content.find((b): b is ToolCallBlock => b.type === 'tool_call' && b.id === r.id)!;
      yield* this.emitOutput(call.id, r.output);
      yield* this.finishResult(call, r.state, r.metadata ?? {});
    }
    return 'done';
  }

  private async *pause(awaiting: ToolCallBlock[]): AsyncGenerator<AgentEvent, Msg> {
    // The paused message keeps changing when the reply resumes: hand out a snapshot.
    const msg = JSON.parse(JSON.stringify(this.msg)) as Msg;
    await this.observe('onPause', (plugin) => ({ ctx: this.ctx(plugin), message: msg, awaiting }));
    return msg;
  }

  private async *beforeFinish(
    reason: 'completed' | 'exceed_max_iters',
  ): AsyncGenerator<AgentEvent, ContinueReply | undefined> {
    for (const { plugin, fn } of this.core.driver.get('beforeFinish')) {
      const out = await this.intercept(plugin, 'beforeFinish', () =>
        fn({ ctx: this.ctx(plugin), reason, message: this.msg }),
      );
      if (this.pending.length) yield* this.flush();
      if (out?.continue) return out;
    }
    return undefined;
  }

  /** Ends the reply: closes unanswered calls (interrupt/error), emits REPLY_END, runs observers. */
  private async *end(
    reason: ReplyFinishedReason,
    error: ErrorInfo | null = null,
  ): AsyncGenerator<AgentEvent, Msg> {
    const replyId = this.msg.id;
    if (reason === 'interrupted' || reason === 'error') {
      for (const call of unfinishedCalls(this.msg)) {
        const started = resultOf(this.msg, call.id) !== undefined;
        if (!started)
          yield this.apply({
            type: 'TOOL_RESULT_START',
            replyId,
            toolCallId: call.id,
            toolCallName: call.name,
          });
        const text = reason === 'interrupted' ? INTERRUPTED_TEXT : FAILED_TEXT;
        yield this.apply({ type: 'TOOL_RESULT_TEXT_DELTA', replyId, toolCallId: call.id, delta: text });
        yield this.apply({
          type: 'TOOL_RESULT_END',
          replyId,
          toolCallId: call.id,
          state: reason === 'interrupted' ? 'interrupted' : 'error',
          metadata: {},
        });
      }
    }
    if (reason === 'exceed_max_iters')
      yield this.apply({ type: 'EXCEED_MAX_ITERS', replyId, name: this.core.name });
    const structuredOutput =
      reason === 'completed' ? (this.state.reply?.finish?.structuredOutput ?? null) : null;
    yield this.apply({
      type: 'REPLY_END',
      replyId,
      sessionId: this.state.sessionId,
      finishedReason: reason,
      error,
      structuredOutput,
      createdAt: now(),
    });
    // An ended reply's message no longer changes: it is returned as persisted, not copied.
    const msg = this.msg;
    await this.observe('onReplyEnd', (plugin) => ({
      ctx: this.ctx(plugin),
      message: msg,
      finishedReason: reason,
    }));
    return msg;
  }

  // ── plugin plumbing ──────────────────────────────────────────────────────────────────────────

  private async *flush(): AsyncGenerator<AgentEvent> {
    while (this.pending.length) {
      const event = this.pending.shift()!;
      if (this.sink) {
        this.sink.queue.push(event);
        this.sink.notify();
      } else yield event;
    }
  }

  private async intercept<T>(plugin: Plugin<any>, hook: HookName, call: () => T | Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (isAbort(error, this.signal)) throw error;
      throw new PluginHookError(plugin.name, hook, error);
    }
  }

  private async observe<K extends 'onPause' | 'onReplyEnd'>(
    hook: K,
    event: (plugin: Plugin<any>) => Parameters<Hooks[K]>[0],
  ): Promise<void> {
    const handlers = this.core.driver.get(hook);
    if (handlers.length === 0) return;
    await Promise.all(
      handlers.map(async ({ plugin, fn }) => {
        try {
          await (fn as (e: unknown) => unknown)(event(plugin));
        } catch (error) {
          await this.reportObserverError(plugin.name, hook, error);
        }
      }),
    );
  }

  private async reportObserverError(plugin: string, hook: string, error: unknown): Promise<void> {
    this.core.logger.error(`agentkit: plugin '${plugin}' failed in observer hook '${hook}'`, error);
    for (const { plugin: p, fn } of this.core.driver.get('onError')) {
      try {
        await fn({ error, plugin, hook });
      } catch (e) {
        this.core.logger.error(`agentkit: plugin '${p.name}' failed in 'onError'`, e);
      }
    }
  }

  private addHint(hint: HintBlock['hint'], source: string | null, emit: boolean): HintBlock {
    const event: AgentEvent = {
      type: 'HINT_BLOCK',
      replyId: this.msg.id,
      blockId: newId(),
      source,
      hint: typeof hint === 'string' ? hint : structuredClone(hint),
      createdAt: now(),
    };
    // No revision bump: the request holds the reply message itself, so the hint is already in it and
    // edits other hooks made to the request are kept.
    this.apply(event);
    if (emit) this.pending.push(event);
    return this.msg.content[this.msg.content.length - 1] as HintBlock;
  }

  private ctx(plugin: Plugin<any>): PluginContext {
    let ctx = this.contexts.get(plugin);
    if (ctx) return ctx;
    const run = this;
    const core = this.core;
    const state = this.state;
    ctx = {
      pluginName: plugin.name,
      agentName: core.name,
      model: core.model,
      systemPrompt: core.systemPrompt,
      state,
      get reply() {
        return state.reply!;
      },
      maxIters: core.maxIters,
      signal: this.signal,
      logger: core.logger,
      getState: <T>() => state.plugins[plugin.name] as T,
      setState: (value) => {
        state.plugins[plugin.name] = value as JSONValue;
      },
      getReplyData: <T>() => state.reply!.data[plugin.name] as T | undefined,
      setReplyData: (value) => {
        state.reply!.data[plugin.name] = value as JSONValue;
      },
      addHint: (hint, options) =>
        run.addHint(
          hint,
          options?.source === undefined ? plugin.name : options.source,
          options?.emit !== false,
        ),
      finishReply: (result) => {
        state.reply!.finish = {
          structuredOutput: (result?.structuredOutput ?? null) as JSONValue,
          ...(result?.reason ? { reason: result.reason } : {}),
        };
      },
      emit: (name, value) => {
        run.pending.push({ type: 'CUSTOM', replyId: run.msg.id, name, value });
      },
      replaceContext: ({ summary, context }) => {
        state.summary = summary;
        state.context = context;
        run.revision++;
        const reply = context.find((m) => m.id === run.msg.id);
        if (reply) run.msg = reply;
        else {
          // The reply's message was compressed away entirely: continue it in a fresh message with its id.
          run.msg = createMsg({
            role: 'assistant',
            name: core.name,
            content: [],
            id: run.msg.id,
            createdAt: run.msg.createdAt,
          });
          state.context.push(run.msg);
        }
      },
      streamModel: (request) => streamModel(core, { ...request, signal: request.signal ?? run.signal }),
      countTokens: (input?: TokenCountInput) =>
        input
          ? core.counter.count(input)
          : calibratedCount(core, {
              systemPrompt: core.systemPrompt,
              messages: run.buildMessages(),
              tools: run.schemas(),
            }),
      capability: (name) => core.capabilities[name],
      get tools() {
        return [...run.tools.values()];
      },
    };
    this.contexts.set(plugin, ctx);
    return ctx;
  }
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

const PUMP = Symbol('agentkit.pump');

/** What the driver sends back into a model call after pumping its stream. */
export type PumpOutcome = { failed: false } | { failed: true; error: unknown };

interface PumpRequest {
  [PUMP]: true;
  iterator: AsyncIterator<ModelChunk>;
  stream: ModelStream;
}

function* drain(out: AgentEvent[]): Generator<AgentEvent> {
  for (let i = 0; i < out.length; i++) yield out[i]!;
  out.length = 0;
}

/** Options of {@link driveRun}. */
export interface DriveOptions {
  /** Yield the final (or paused) message after the events. */
  yieldFinalMsg?: boolean;
  /** Called before the run starts (may throw to refuse it) and after it ends, however it ends. */
  onStart?: () => void;
  onEnd?: () => void;
}

/**
 * Drives a reply run and yields its events (and the message last with `yieldFinalMsg`); returns the
 * message. While a model streams, the driver pulls chunks from the model's iterator itself and yields
 * their events directly, so per-delta cost does not grow with the depth of the loop's generators.
 */
export async function* driveRun(
  run: () => AsyncGenerator<AgentEvent, Msg | null, PumpOutcome | undefined>,
  options: DriveOptions = {},
): AsyncGenerator<AgentEvent | Msg, Msg | null> {
  options.onStart?.();
  let gen: AsyncGenerator<AgentEvent, Msg | null, PumpOutcome | undefined> | undefined;
  let input: PumpOutcome | undefined;
  let pumping: AsyncIterator<ModelChunk> | undefined;
  try {
    gen = run();
    for (;;) {
      const r = await gen.next(input);
      input = undefined;
      if (r.done) {
        if (options.yieldFinalMsg && r.value) yield r.value;
        return r.value;
      }
      const value = r.value as AgentEvent | PumpRequest;
      if (!(PUMP in value)) {
        yield value;
        continue;
      }
      const { iterator, stream } = value;
      const out = stream.out;
      pumping = iterator;
      try {
        for (;;) {
          const c = await iterator.next();
          if (c.done) break;
          stream.handle(c.value);
          for (let i = 0; i < out.length; i++) yield out[i]!;
          out.length = 0;
        }
        input = { failed: false };
      } catch (error) {
        input = { failed: true, error };
      }
      pumping = undefined;
    }
  } finally {
    // When the consumer stopped early, close the model stream and the run.
    if (pumping) await pumping.return?.().catch(() => {});
    await gen?.return(null).catch(() => {});
    options.onEnd?.();
  }
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
  core: Pick<AgentCore, 'counter' | 'tokens' | 'state'>,
  input: TokenCountInput,
): number {
  core.tokens.calibrate = true;
  const estimate = core.counter.count(input);
  const last = core.tokens.last;
  if (!last || last.context !== core.state.context || last.summary !== core.state.summary) return estimate;
  return Math.max(0, last.reported + estimate - last.estimate);
}
