import {
  addUsage,
  emptyUsage,
  type ChatModel,
  type InferenceRequest,
  type Msg,
  type PluginContext,
  type ReplyFinishedReason,
  type ReplyInput,
  type ReplyOptions,
  type Tool,
  type ToolCallBlock,
  type ToolResultBlock,
  type Usage,
} from '@agentkit/core';
import {
  type Attributes,
  type Context,
  context as contextApi,
  type Link,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
  type Tracer,
} from '@opentelemetry/api';
import { errorType } from './error-type';
import {
  inputMessages,
  jsonOrText,
  outputMessage,
  replyFinishReason,
  systemInstructions,
  toolDefinitions,
  toolOutputValue,
} from './genai-messages';
import type { GenAiInstruments, GenAiMetrics } from './genai-metrics';
import { type ModelCallOutcome, ModelCallWatch } from './model-call-watch';
import * as sc from './semconv';
import { fromTraceHeaders, toTraceHeaders } from './traceparent';

/** What every reply trace of one plugin shares (resolved options). */
export interface TraceSettings {
  readonly tracer: Tracer;
  readonly metrics: GenAiMetrics;
  /** `gen_ai.provider.name` of the agent's model. */
  readonly provider: (model: ChatModel) => string;
  readonly captureContent: boolean;
  /** Also emit `gen_ai.system` (the default; `gen_ai_latest_experimental` turns it off). */
  readonly legacyAttributes: boolean;
  /** How a resumed run relates to the paused one. */
  readonly resume: 'link' | 'parent';
}

/** How a model call that did not complete normally ended. */
type CallFailure = { errorType: string; message: string | undefined } | 'interrupted';

interface OpenChat {
  span: Span | undefined;
  startedAt: number;
  watch: ModelCallWatch;
}

interface OpenTool {
  span: Span | undefined;
  startedAt: number;
}

const epochMs = (performanceTime: number) => performance.timeOrigin + performanceTime;

/**
 * The spans and measurements of one run of a reply: a new reply, or the resumption of a paused one.
 * The `invoke_agent` span is the run; `chat` and `execute_tool` spans are its children. Core has no hook
 * at the end of a model call, so a call is taken to end at the next hook of the reply (a tool decision,
 * a tool result, the next call, the finish check, the pause or the end), which follows it immediately;
 * `modelCallEnds` is where a future hook would report it directly.
 */
export class ReplyTrace {
  private readonly span: Span;
  /** Whether the run's span records: if not (no SDK, or sampled out), neither do its children. */
  private readonly recording: boolean;
  /** The context holding the run's span: the parent of its children. */
  private readonly parent: Context;
  private readonly instruments: GenAiInstruments | undefined;
  private readonly provider: string;
  private readonly model: string;
  private readonly startedAt = performance.now();
  /** When the last step (hook) of the run was seen: the start of a call that ran without `beforeTool`. */
  private lastStepAt = this.startedAt;
  private chat: OpenChat | undefined;
  private readonly tools = new Map<string, OpenTool>();
  private readonly usage: Usage = emptyUsage();
  private usageReported = false;
  private finishReasons: string[] | undefined;
  /** Calls whose results the caller brings (resume with external results): executed elsewhere. */
  private readonly external: ReadonlySet<string>;
  // Attribute sets shared by every measurement of the run.
  private readonly metricBase: Attributes;
  private readonly chatMetric: Attributes;
  private readonly inputTokens: Attributes;
  private readonly outputTokens: Attributes;

  /**
   * Starts the run's span. `input` and `options` are what `beforeReply` got; `input` is `undefined` for a
   * paused reply ended by an interrupt, which runs no `beforeReply`. A resumed run links to (or, with
   * `resume: 'parent'`, continues) the trace of the run that paused, kept in the reply's plugin data.
   */
  constructor(
    private readonly settings: TraceSettings,
    ctx: PluginContext,
    input: ReplyInput | undefined,
    options?: ReplyOptions,
  ) {
    const model = ctx.model;
    this.model = model.name;
    this.provider = settings.provider(model);
    this.instruments = settings.metrics.current();
    this.external = new Set(
      input?.kind === 'resume' && input.event.type === 'EXTERNAL_EXECUTION_RESULT'
        ? input.event.executionResults.map((r) => r.id)
        : [],
    );

    let parent = contextApi.active();
    let links: Link[] | undefined;
    const paused = input?.kind === 'new' ? undefined : fromTraceHeaders(ctx.getReplyData());
    if (paused) {
      if (settings.resume === 'parent') parent = trace.setSpanContext(parent, paused);
      else links = [{ context: paused }];
    }
    const attributes: Attributes = {
      [sc.ATTR_GEN_AI_OPERATION_NAME]: 'invoke_agent',
      [sc.ATTR_GEN_AI_PROVIDER_NAME]: this.provider,
      [sc.ATTR_GEN_AI_AGENT_NAME]: ctx.agentName,
      [sc.ATTR_GEN_AI_CONVERSATION_ID]: ctx.state.sessionId,
      [sc.ATTR_GEN_AI_REQUEST_MODEL]: this.model,
      [sc.ATTR_AGENTKIT_REPLY_ID]: ctx.reply.id,
    };
    if (settings.legacyAttributes) attributes[sc.ATTR_GEN_AI_SYSTEM] = this.provider;
    // A reply asked for a structured result (the structured-output plugin's per-reply option).
    if (options?.structuredSchema != null) attributes[sc.ATTR_GEN_AI_OUTPUT_TYPE] = 'json';
    this.span = settings.tracer.startSpan(
      `invoke_agent ${ctx.agentName}`,
      links ? { kind: SpanKind.INTERNAL, attributes, links } : { kind: SpanKind.INTERNAL, attributes },
      parent,
    );
    this.recording = this.span.isRecording();
    this.parent = trace.setSpan(parent, this.span);
    if (input) {
      // Kept in the reply's plugin data, which the persisted state carries across a pause.
      const headers = toTraceHeaders(this.span.spanContext());
      if (headers) ctx.setReplyData(headers);
      if (this.recording && settings.captureContent) {
        const instructions = systemInstructions(ctx.systemPrompt);
        if (instructions)
          this.span.setAttribute(sc.ATTR_GEN_AI_SYSTEM_INSTRUCTIONS, JSON.stringify(instructions));
        if (input.kind === 'new')
          this.span.setAttribute(
            sc.ATTR_GEN_AI_INPUT_MESSAGES,
            JSON.stringify(inputMessages(input.messages)),
          );
      }
    }

    this.metricBase = {
      [sc.ATTR_GEN_AI_PROVIDER_NAME]: this.provider,
      [sc.ATTR_GEN_AI_REQUEST_MODEL]: this.model,
    };
    if (settings.legacyAttributes) this.metricBase[sc.ATTR_GEN_AI_SYSTEM] = this.provider;
    this.chatMetric = {
      ...this.metricBase,
      [sc.ATTR_GEN_AI_OPERATION_NAME]: 'chat',
      [sc.ATTR_GEN_AI_RESPONSE_MODEL]: this.model,
    };
    this.inputTokens = { ...this.chatMetric, [sc.ATTR_GEN_AI_TOKEN_TYPE]: 'input' };
    this.outputTokens = { ...this.chatMetric, [sc.ATTR_GEN_AI_TOKEN_TYPE]: 'output' };
  }

  /** Whether anything of this run is recorded (spans, or metrics). */
  private get observed(): boolean {
    return this.recording || this.instruments !== undefined;
  }

  // ── model calls ─────────────────────────────────────────────────────────────────────────────────

  /** A model call is about to start with `request` (the last `beforeInference` hook's view of it). */
  modelCallStarts(ctx: PluginContext, request: InferenceRequest): void {
    this.settleModelCall(ctx);
    // A hook ended the reply: core makes no model call.
    if (ctx.reply.finish || !this.observed) return;
    let span: Span | undefined;
    if (this.recording) {
      const attributes: Attributes = {
        [sc.ATTR_GEN_AI_OPERATION_NAME]: 'chat',
        [sc.ATTR_GEN_AI_PROVIDER_NAME]: this.provider,
        [sc.ATTR_GEN_AI_REQUEST_MODEL]: this.model,
        [sc.ATTR_GEN_AI_CONVERSATION_ID]: ctx.state.sessionId,
        [sc.ATTR_GEN_AI_REQUEST_STREAM]: true,
      };
      if (this.settings.legacyAttributes) attributes[sc.ATTR_GEN_AI_SYSTEM] = this.provider;
      if (this.settings.captureContent) {
        const instructions = systemInstructions(request.systemPrompt);
        if (instructions) attributes[sc.ATTR_GEN_AI_SYSTEM_INSTRUCTIONS] = JSON.stringify(instructions);
        attributes[sc.ATTR_GEN_AI_INPUT_MESSAGES] = JSON.stringify(inputMessages(request.messages));
        if (request.tools.length)
          attributes[sc.ATTR_GEN_AI_TOOL_DEFINITIONS] = JSON.stringify(toolDefinitions(request.tools));
      }
      span = this.settings.tracer.startSpan(
        `chat ${this.model}`,
        { kind: SpanKind.CLIENT, attributes },
        this.parent,
      );
    }
    this.chat = { span, startedAt: performance.now(), watch: new ModelCallWatch(ctx) };
  }

  /** Ends the open model call, if any, as having completed (it was followed by another step). */
  private settleModelCall(ctx: PluginContext): void {
    if (this.chat) this.modelCallEnds(this.chat.watch.outcome(ctx));
  }

  /** The open model call ended: with `outcome`, and `failure` unless it completed. */
  modelCallEnds(outcome: ModelCallOutcome, failure?: CallFailure): void {
    const chat = this.chat;
    if (!chat) return;
    this.chat = undefined;
    const now = performance.now();
    this.lastStepAt = now;
    const { usage, output } = outcome;
    const responseModel = outcome.responseModel ?? this.model;
    if (usage) {
      addUsage(this.usage, usage);
      this.usageReported = true;
    }
    let finishReasons: string[] | undefined;
    if (!failure) {
      finishReasons = outcome.finishReasons ?? [
        output.some((b) => b.type === 'tool_call') ? 'tool_call' : 'stop',
      ];
      this.finishReasons = finishReasons;
    }
    const failed = typeof failure === 'object' ? failure : undefined;
    const span = chat.span;
    if (span) {
      span.setAttribute(sc.ATTR_GEN_AI_RESPONSE_MODEL, responseModel);
      if (usage) span.setAttributes(usageAttributes(usage));
      if (finishReasons) {
        span.setAttribute(sc.ATTR_GEN_AI_RESPONSE_FINISH_REASONS, finishReasons);
        if (this.settings.captureContent)
          span.setAttribute(
            sc.ATTR_GEN_AI_OUTPUT_MESSAGES,
            JSON.stringify([outputMessage(output, finishReasons[0] ?? 'stop')]),
          );
      }
      if (failed) fail(span, failed.errorType, failed.message);
      span.end();
    }
    const instruments = this.instruments;
    if (instruments) {
      const sameModel = responseModel === this.model;
      const base = sameModel
        ? this.chatMetric
        : { ...this.chatMetric, [sc.ATTR_GEN_AI_RESPONSE_MODEL]: responseModel };
      instruments.operationDuration.record(
        (now - chat.startedAt) / 1000,
        failed ? { ...base, [sc.ATTR_ERROR_TYPE]: failed.errorType } : base,
      );
      if (usage) {
        const type = sc.ATTR_GEN_AI_TOKEN_TYPE;
        instruments.tokenUsage.record(
          usage.inputTokens,
          sameModel ? this.inputTokens : { ...base, [type]: 'input' },
        );
        instruments.tokenUsage.record(
          usage.outputTokens,
          sameModel ? this.outputTokens : { ...base, [type]: 'output' },
        );
      }
    }
  }

  // ── tool calls ──────────────────────────────────────────────────────────────────────────────────

  /** `beforeTool`: a call is being decided on and, unless denied or paused, runs next. */
  toolStarts(ctx: PluginContext, call: Readonly<ToolCallBlock>, tool: Tool | undefined): void {
    this.settleModelCall(ctx);
    const now = performance.now();
    this.lastStepAt = now;
    if (!this.observed) return;
    this.tools.set(call.id, { span: this.startToolSpan(call, tool, undefined), startedAt: now });
  }

  /** `afterTool`: the call's result is final (a later hook may still have changed the saved output). */
  toolEnds(ctx: PluginContext, call: Readonly<ToolCallBlock>, result: ToolResultBlock): void {
    this.settleModelCall(ctx);
    const now = performance.now();
    let open = this.tools.get(call.id);
    if (open) this.tools.delete(call.id);
    else if (this.observed)
      // Calls confirmed by the user run without `beforeTool`, and invalid input fails before it: the
      // call started after the previous step of the run, at the latest.
      open = { span: this.startToolSpan(call, undefined, this.lastStepAt), startedAt: this.lastStepAt };
    this.lastStepAt = now;
    if (!open) return;
    const external = this.external.has(call.id);
    const span = open.span;
    if (span) {
      span.setAttribute(sc.ATTR_AGENTKIT_TOOL_RESULT_STATE, result.state);
      if (external) span.setAttribute(sc.ATTR_AGENTKIT_TOOL_EXTERNAL, true);
      if (this.settings.captureContent) {
        span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_ARGUMENTS, JSON.stringify(jsonOrText(call.input)));
        if (result.state === 'success')
          span.setAttribute(sc.ATTR_GEN_AI_TOOL_CALL_RESULT, JSON.stringify(toolOutputValue(result.output)));
      }
      if (result.state === 'error') fail(span, sc.ERROR_TYPE_TOOL, undefined);
      span.end();
    }
    // A denied call did not run, and an external one ran elsewhere: neither is an operation of ours.
    if (this.instruments && result.state !== 'denied' && !external)
      this.instruments.operationDuration.record(
        (now - open.startedAt) / 1000,
        result.state === 'error' ? this.toolMetric(sc.ERROR_TYPE_TOOL) : this.toolMetric(undefined),
      );
  }

  private startToolSpan(
    call: Readonly<ToolCallBlock>,
    tool: Tool | undefined,
    startedAt: number | undefined,
  ): Span | undefined {
    if (!this.recording) return undefined;
    const attributes: Attributes = {
      [sc.ATTR_GEN_AI_OPERATION_NAME]: 'execute_tool',
      [sc.ATTR_GEN_AI_TOOL_NAME]: call.name,
      [sc.ATTR_GEN_AI_TOOL_CALL_ID]: call.id,
      [sc.ATTR_GEN_AI_TOOL_TYPE]: 'function',
    };
    if (tool?.description) attributes[sc.ATTR_GEN_AI_TOOL_DESCRIPTION] = tool.description;
    return this.settings.tracer.startSpan(
      `execute_tool ${call.name}`,
      startedAt === undefined
        ? { kind: SpanKind.INTERNAL, attributes }
        : { kind: SpanKind.INTERNAL, attributes, startTime: epochMs(startedAt) },
      this.parent,
    );
  }

  private toolMetric(error: string | undefined): Attributes {
    const attributes: Attributes = {
      [sc.ATTR_GEN_AI_OPERATION_NAME]: 'execute_tool',
      [sc.ATTR_GEN_AI_PROVIDER_NAME]: this.provider,
    };
    if (this.settings.legacyAttributes) attributes[sc.ATTR_GEN_AI_SYSTEM] = this.provider;
    if (error) attributes[sc.ATTR_ERROR_TYPE] = error;
    return attributes;
  }

  // ── the run's end ───────────────────────────────────────────────────────────────────────────────

  /** A decision point after a model call (`beforeFinish`): the call is over. */
  stepDone(ctx: PluginContext): void {
    this.settleModelCall(ctx);
  }

  /** The reply paused: calls waiting for the user or the caller end here, and so does the run. */
  paused(ctx: PluginContext, awaiting: readonly ToolCallBlock[]): void {
    this.settleModelCall(ctx);
    for (const [id, open] of this.tools) {
      const state = awaiting.find((c) => c.id === id)?.state ?? 'pending';
      open.span?.setAttribute(sc.ATTR_AGENTKIT_TOOL_CALL_STATE, state);
      open.span?.end();
    }
    this.tools.clear();
    this.finish('paused', undefined);
  }

  /** The reply ended: a model call or tool calls still open were cut short by its end. */
  ended(ctx: PluginContext, message: Msg, reason: ReplyFinishedReason): void {
    const failure: CallFailure | undefined =
      reason === 'error'
        ? { errorType: errorType(message.error), message: message.error?.message }
        : reason === 'interrupted'
          ? 'interrupted'
          : undefined;
    if (this.chat) this.modelCallEnds(this.chat.watch.outcome(ctx), failure);
    for (const [id, open] of this.tools) {
      const span = open.span;
      if (!span) continue;
      const result = message.content.find(
        (b): b is ToolResultBlock => b.type === 'tool_result' && b.id === id,
      );
      span.setAttribute(sc.ATTR_AGENTKIT_TOOL_RESULT_STATE, result?.state ?? reason);
      if (typeof failure === 'object') fail(span, failure.errorType, failure.message);
      span.end();
    }
    this.tools.clear();
    this.finish(reason, message);
  }

  private finish(reason: ReplyFinishedReason | 'paused', message: Msg | undefined): void {
    const span = this.span;
    const error = reason === 'error' ? errorType(message?.error) : undefined;
    if (this.recording) {
      span.setAttribute(sc.ATTR_AGENTKIT_REPLY_FINISHED_REASON, reason);
      if (this.usageReported) span.setAttributes(usageAttributes(this.usage));
      if (this.finishReasons) span.setAttribute(sc.ATTR_GEN_AI_RESPONSE_FINISH_REASONS, this.finishReasons);
      if (message && reason !== 'paused' && this.settings.captureContent) {
        const shown = message.content.filter((b) => b.type === 'text' || b.type === 'data');
        span.setAttribute(
          sc.ATTR_GEN_AI_OUTPUT_MESSAGES,
          JSON.stringify([outputMessage(shown, replyFinishReason(reason as ReplyFinishedReason))]),
        );
      }
      if (error) fail(span, error, message?.error?.message);
    }
    span.end();
    if (this.instruments) {
      const attributes: Attributes = { ...this.metricBase, [sc.ATTR_GEN_AI_OPERATION_NAME]: 'invoke_agent' };
      if (error) attributes[sc.ATTR_ERROR_TYPE] = error;
      this.instruments.operationDuration.record((performance.now() - this.startedAt) / 1000, attributes);
    }
  }
}

function usageAttributes(usage: Usage): Attributes {
  const attributes: Attributes = {
    [sc.ATTR_GEN_AI_USAGE_INPUT_TOKENS]: usage.inputTokens,
    [sc.ATTR_GEN_AI_USAGE_OUTPUT_TOKENS]: usage.outputTokens,
  };
  if (usage.cacheInputTokens > 0)
    attributes[sc.ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS] = usage.cacheInputTokens;
  if (usage.cacheCreationInputTokens > 0)
    attributes[sc.ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS] = usage.cacheCreationInputTokens;
  if (usage.reasoningTokens > 0)
    attributes[sc.ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS] = usage.reasoningTokens;
  return attributes;
}

/** Marks a span failed the way the conventions' "Recording errors" asks. */
function fail(span: Span, type: string, message: string | undefined): void {
  span.setAttribute(sc.ATTR_ERROR_TYPE, type);
  span.setStatus(message ? { code: SpanStatusCode.ERROR, message } : { code: SpanStatusCode.ERROR });
}
