import {
  addUsage,
  type AgentEvent,
  type DataBlock,
  emptyUsage,
  type ErrorInfo,
  type InputEvent,
  type Msg,
  type ReplyFinishedReason,
  type TextBlock,
  type ToolCallBlock,
  type Usage,
} from '@agentkit/core';
import {
  type AGUIEvent,
  EventType,
  type Interrupt,
  PROTOCOL_VERSION,
  type RunAgentInput,
  type TokenUsage,
} from '@ag-ui/core';
import { AssistantSegments, agUiContent, resultMessageId, toAgUiMessages } from './to-ag-ui-messages';

/** Options of {@link AgUiEventMapper} (and of `toAgUiEvents`). */
export interface AgUiEventMapperOptions {
  /** The AG-UI thread (the agentkit session id). */
  threadId: string;
  /** The AG-UI run (from `RunAgentInput.runId`). */
  runId: string;
  /** The request, echoed in `RUN_STARTED.input`. */
  input?: RunAgentInput;
  /** Send the model's reasoning (thinking blocks) as reasoning messages. Default `true`. */
  reasoning?: boolean;
  /**
   * The session's messages before the reply, for the `MESSAGES_SNAPSHOT` a recovered reply
   * (`REPLY_SNAPSHOT`) becomes: AG-UI snapshots are the whole conversation. Default: none.
   */
  history?: readonly Msg[];
}

/** How the run ended, when the caller knows more than the events say (a server's run markers). */
export interface AgUiRunOutcome {
  /** `ended`, `paused`, `suspended` (the server stopped; the reply continues later) or `failed`. */
  status: 'ended' | 'paused' | 'suspended' | 'failed';
  /** Why a failed run failed. */
  error?: { message: string; code?: string } | null;
}

/** The answer a tool-approval interrupt expects (AG-UI's approve-with-edits pattern). */
export const APPROVAL_RESPONSE_SCHEMA = {
  type: 'object',
  properties: {
    approved: { type: 'boolean' },
    editedArgs: { type: 'object', description: 'Full replacement of the tool arguments (not merged).' },
  },
  required: ['approved'],
} as const;

/**
 * Turns agentkit events into AG-UI events for one AG-UI run: `RUN_STARTED` from
 * {@link AgUiEventMapper.start}, the reply's events from {@link AgUiEventMapper.push}, and the terminal
 * event from {@link AgUiEventMapper.finish} (open messages and tool calls are closed first). Never throws
 * on odd input.
 *
 * | agentkit event | AG-UI events |
 * | --- | --- |
 * | run start | `RUN_STARTED` |
 * | `REPLY_START` | nothing (an earlier reply it replaces may have been closed before it) |
 * | `TEXT_BLOCK_*` | `TEXT_MESSAGE_START` / `_CONTENT` / `_END` (message id: the block id) |
 * | `THINKING_BLOCK_*` | `REASONING_START` + `REASONING_MESSAGE_START` / `REASONING_MESSAGE_CONTENT` / `REASONING_MESSAGE_END` + `REASONING_END` |
 * | `TOOL_CALL_START` / `_DELTA` / `_END` | `TOOL_CALL_START` (with `parentMessageId`) / `TOOL_CALL_ARGS` / `TOOL_CALL_END` |
 * | `TOOL_RESULT_END` | `TOOL_CALL_RESULT` (message id `<call id>.result`, `metadata.agentkit.state`) |
 * | `REPLY_SNAPSHOT` | `MESSAGES_SNAPSHOT` (history + the checkpointed reply) |
 * | `CUSTOM` | `CUSTOM` |
 * | `REPLY_END` completed / exceed_max_iters | `RUN_FINISHED` outcome `success` (`result`: the structured output) |
 * | `REPLY_END` interrupted | `RUN_FINISHED` outcome `cancelled` |
 * | `REPLY_END` error, a failed or suspended run | `RUN_ERROR` (`code`: the error type or code) |
 * | `REQUIRE_USER_CONFIRM` (paused) | `RUN_FINISHED` outcome `interrupt`: one `tool_call` interrupt per call (id = the tool call id) |
 * | `REQUIRE_EXTERNAL_EXECUTION` (paused) | `RUN_FINISHED` outcome `success` with `pendingToolCallIds` (frontend tools) |
 */
export class AgUiEventMapper {
  private readonly reasoning: boolean;
  private readonly segments = new AssistantSegments();
  private readonly openTexts = new Set<string>();
  private readonly openReasoning = new Set<string>();
  private readonly openCalls = new Set<string>();
  private readonly outputs = new Map<string, Array<TextBlock | DataBlock>>();
  private readonly usage = new Map<string, Usage>();
  private model = 'unknown';
  private confirms: ToolCallBlock[] = [];
  private external: string[] = [];
  private end: {
    finishedReason: ReplyFinishedReason;
    error: ErrorInfo | null;
    structuredOutput: unknown;
  } | null = null;
  private finished = false;

  constructor(private readonly options: AgUiEventMapperOptions) {
    this.reasoning = options.reasoning ?? true;
  }

  /** `RUN_STARTED`. */
  start(): AGUIEvent[] {
    const { threadId, runId, input } = this.options;
    return [
      {
        type: EventType.RUN_STARTED,
        threadId,
        runId,
        protocolVersion: PROTOCOL_VERSION,
        ...(input ? { input } : {}),
      },
    ];
  }

  /** The AG-UI events for one agentkit event (or a resume input event logged with the run). */
  push(event: AgentEvent | InputEvent): AGUIEvent[] {
    if (this.finished) return [];
    const out: AGUIEvent[] = [];
    switch (event.type) {
      case 'REPLY_START':
        // What came before closed an earlier, unfinished reply: this run is about the new one.
        this.end = null;
        this.confirms = [];
        this.external = [];
        break;
      case 'REPLY_SNAPSHOT': {
        this.close(out);
        const history = (this.options.history ?? []).filter((m) => m.id !== event.replyId);
        out.push({
          type: EventType.MESSAGES_SNAPSHOT,
          messages: toAgUiMessages([...history, event.message], { reasoning: this.reasoning }),
        });
        for (const block of event.message.content) {
          if (block.type === 'text') this.segments.text(block.id);
          else if (block.type === 'tool_call') this.segments.call(block.id);
          else if (block.type === 'tool_result') this.segments.result();
        }
        break;
      }
      case 'MODEL_CALL_START':
        this.model = event.modelName;
        break;
      case 'MODEL_CALL_END':
        this.usage.set(this.model, addUsage(this.usage.get(this.model) ?? emptyUsage(), event.usage));
        break;
      case 'TEXT_BLOCK_START':
        this.openTexts.add(event.blockId);
        out.push({
          type: EventType.TEXT_MESSAGE_START,
          messageId: this.segments.text(event.blockId),
          role: 'assistant',
        });
        break;
      case 'TEXT_BLOCK_DELTA':
        if (this.openTexts.has(event.blockId))
          out.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: event.blockId, delta: event.delta });
        break;
      case 'TEXT_BLOCK_END':
        if (this.openTexts.delete(event.blockId))
          out.push({ type: EventType.TEXT_MESSAGE_END, messageId: event.blockId });
        break;
      case 'THINKING_BLOCK_START':
        if (!this.reasoning) break;
        this.openReasoning.add(event.blockId);
        out.push(
          { type: EventType.REASONING_START, messageId: event.blockId },
          { type: EventType.REASONING_MESSAGE_START, messageId: event.blockId, role: 'reasoning' },
        );
        break;
      case 'THINKING_BLOCK_DELTA':
        if (this.openReasoning.has(event.blockId))
          out.push({
            type: EventType.REASONING_MESSAGE_CONTENT,
            messageId: event.blockId,
            delta: event.delta,
          });
        break;
      case 'THINKING_BLOCK_END':
        if (this.openReasoning.delete(event.blockId))
          out.push(
            { type: EventType.REASONING_MESSAGE_END, messageId: event.blockId },
            { type: EventType.REASONING_END, messageId: event.blockId },
          );
        break;
      case 'TOOL_CALL_START':
        this.openCalls.add(event.toolCallId);
        out.push({
          type: EventType.TOOL_CALL_START,
          toolCallId: event.toolCallId,
          toolCallName: event.toolCallName,
          parentMessageId: this.segments.call(event.toolCallId),
        });
        break;
      case 'TOOL_CALL_DELTA':
        if (this.openCalls.has(event.toolCallId))
          out.push({ type: EventType.TOOL_CALL_ARGS, toolCallId: event.toolCallId, delta: event.delta });
        break;
      case 'TOOL_CALL_END':
        if (this.openCalls.delete(event.toolCallId))
          out.push({ type: EventType.TOOL_CALL_END, toolCallId: event.toolCallId });
        break;
      case 'TOOL_RESULT_START':
        this.segments.result();
        this.outputs.set(event.toolCallId, []);
        break;
      case 'TOOL_RESULT_TEXT_DELTA': {
        const output = this.output(event.toolCallId);
        const last = output.at(-1);
        if (last?.type === 'text') last.text += event.delta;
        else output.push({ type: 'text', id: `${event.toolCallId}.${output.length}`, text: event.delta });
        break;
      }
      case 'TOOL_RESULT_DATA_DELTA':
        this.output(event.toolCallId).push({
          type: 'data',
          id: event.blockId,
          source:
            event.url !== undefined
              ? { type: 'url', url: event.url, mediaType: event.mediaType }
              : { type: 'base64', data: event.data ?? '', mediaType: event.mediaType },
          ...(event.name !== undefined ? { name: event.name } : {}),
        });
        break;
      case 'TOOL_RESULT_END': {
        this.segments.result();
        const output = event.output ?? this.outputs.get(event.toolCallId) ?? [];
        this.outputs.delete(event.toolCallId);
        out.push({
          type: EventType.TOOL_CALL_RESULT,
          messageId: resultMessageId(event.toolCallId),
          toolCallId: event.toolCallId,
          content: agUiContent(output),
          role: 'tool',
          metadata: { agentkit: { state: event.state } },
        });
        break;
      }
      case 'REQUIRE_USER_CONFIRM':
        this.confirms.push(...event.toolCalls);
        break;
      case 'REQUIRE_EXTERNAL_EXECUTION':
        this.external.push(...event.toolCalls.map((c) => c.id));
        break;
      case 'CUSTOM':
        out.push({ type: EventType.CUSTOM, name: event.name, value: event.value });
        break;
      case 'REPLY_END':
        this.end = {
          finishedReason: event.finishedReason,
          error: event.error,
          structuredOutput: event.structuredOutput,
        };
        break;
      default:
        break; // hints are for the model; data blocks and the rest have no AG-UI counterpart
    }
    return out;
  }

  /**
   * The events that end the run: open messages and tool calls closed, then `RUN_FINISHED` (success,
   * interrupt or cancelled) or `RUN_ERROR`. Without `run`, the outcome is read from the events.
   */
  finish(run?: AgUiRunOutcome): AGUIEvent[] {
    if (this.finished) return [];
    this.finished = true;
    const out: AGUIEvent[] = [];
    this.close(out);
    const { threadId, runId } = this.options;
    const usage = [...this.usage].map(([model, u]) => tokenUsage(model, u));
    const withUsage = usage.length > 0 ? { usage } : {};
    const error = (message: string, code: string): AGUIEvent => ({
      type: EventType.RUN_ERROR,
      message,
      code,
      ...withUsage,
    });
    if (run?.status === 'failed')
      out.push(error(run.error?.message ?? 'The run failed.', run.error?.code ?? 'INTERNAL'));
    else if (run?.status === 'suspended')
      out.push(
        error(
          'The server stopped before the reply finished; run again without new messages to continue it.',
          'SUSPENDED',
        ),
      );
    else if (this.end?.finishedReason === 'error')
      out.push(error(this.end.error?.message ?? 'The reply failed.', this.end.error?.type ?? 'unknown'));
    else if (this.end?.finishedReason === 'interrupted')
      out.push({
        type: EventType.RUN_FINISHED,
        threadId,
        runId,
        outcome: { type: 'cancelled' },
        ...withUsage,
      });
    else if (this.end) {
      const result = this.end.structuredOutput;
      out.push({
        type: EventType.RUN_FINISHED,
        threadId,
        runId,
        ...(result !== null && result !== undefined ? { result } : {}),
        outcome: { type: 'success' },
        ...withUsage,
      });
    } else if (this.confirms.length > 0)
      out.push({
        type: EventType.RUN_FINISHED,
        threadId,
        runId,
        outcome: { type: 'interrupt', interrupts: this.confirms.map(approvalInterrupt) },
        ...withUsage,
      });
    else
      out.push({
        type: EventType.RUN_FINISHED,
        threadId,
        runId,
        outcome:
          this.external.length > 0
            ? { type: 'success', pendingToolCallIds: this.external }
            : { type: 'success' },
        ...withUsage,
      });
    return out;
  }

  /** Closes what is open (a run that stopped mid-block), as AG-UI requires before the run ends. */
  private close(out: AGUIEvent[]): void {
    for (const id of this.openTexts) out.push({ type: EventType.TEXT_MESSAGE_END, messageId: id });
    for (const id of this.openReasoning)
      out.push(
        { type: EventType.REASONING_MESSAGE_END, messageId: id },
        { type: EventType.REASONING_END, messageId: id },
      );
    for (const id of this.openCalls) out.push({ type: EventType.TOOL_CALL_END, toolCallId: id });
    this.openTexts.clear();
    this.openReasoning.clear();
    this.openCalls.clear();
  }

  /** The output streamed so far for a call (a resumed call's result starts in an earlier run). */
  private output(toolCallId: string): Array<TextBlock | DataBlock> {
    let output = this.outputs.get(toolCallId);
    if (!output) this.outputs.set(toolCallId, (output = []));
    return output;
  }
}

/** A tool call waiting for the user's approval, as an AG-UI interrupt (answered by `resume`). */
function approvalInterrupt(call: ToolCallBlock): Interrupt {
  return {
    id: call.id,
    reason: 'tool_call',
    toolCallId: call.id,
    message: `Allow the tool '${call.name}' to run with ${call.input || '{}'}?`,
    responseSchema: APPROVAL_RESPONSE_SCHEMA as unknown as Record<string, unknown>,
    metadata: {
      agentkit: { toolName: call.name, input: call.input, suggestedRules: call.suggestedRules ?? [] },
    },
  };
}

function tokenUsage(model: string, u: Usage): TokenUsage {
  return {
    model,
    inputTokens: u.inputTokens,
    outputTokens: u.outputTokens,
    totalTokens: u.inputTokens + u.outputTokens,
    reasoningTokens: u.reasoningTokens,
    cachedInputTokens: u.cacheInputTokens,
    cacheWriteInputTokens: u.cacheCreationInputTokens,
  };
}
