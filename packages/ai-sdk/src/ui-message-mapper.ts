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
  type ToolResultState,
  type Usage,
} from '@agentkit/core';
import type { UIMessageChunk } from 'ai';
import type { AgentkitMessageMetadata } from './message-metadata';

/** Options of {@link UIMessageMapper} (and of `toUIMessageStream`). */
export interface UIMessageMapperOptions {
  /** Send the model's reasoning (thinking blocks) as reasoning parts. Default `true`. */
  reasoning?: boolean;
  /**
   * Usage the reply had before these events (a paused reply resumed in a new stream), so the usage in the
   * message metadata stays the reply's total. Default: none.
   */
  usage?: Usage | null;
}

/** How a run of the reply ended, when the caller knows more than the events say (a server's run markers). */
export interface RunOutcome {
  /** `ended`, `paused`, `suspended` (the server stopped; the reply continues later) or `failed`. */
  status: 'ended' | 'paused' | 'suspended' | 'failed';
  /** Why a failed run failed. */
  error?: { message: string; code?: string } | null;
}

type Finish = NonNullable<Extract<UIMessageChunk, { type: 'finish' }>['finishReason']>;

/** Events that may close an earlier reply before a new one starts (see `push`). */
const HELD = new Set<string>([
  'TOOL_RESULT_START',
  'TOOL_RESULT_TEXT_DELTA',
  'TOOL_RESULT_DATA_DELTA',
  'TOOL_RESULT_END',
  'REPLY_END',
  'USER_CONFIRM_RESULT',
  'EXTERNAL_EXECUTION_RESULT',
  'USER_INTERRUPT',
]);

const FINISH_REASON: Record<ReplyFinishedReason, Finish> = {
  completed: 'stop',
  exceed_max_iters: 'other',
  interrupted: 'interrupted',
  error: 'error',
};

/**
 * Turns agentkit events into the AI SDK's UI message stream chunks, one reply = one assistant UI message
 * (`start` carries the reply id as `messageId`). Stateful: feed it one stream's events in order with
 * {@link UIMessageMapper.push}, then call {@link UIMessageMapper.finish} when the run ends. It never
 * throws on odd input (events of an unknown tool call or block are still mapped; the client decides).
 *
 * | agentkit event | UI message chunks |
 * | --- | --- |
 * | `REPLY_START` | `start` (`messageId`: the reply id) |
 * | `MODEL_CALL_START` / `MODEL_CALL_END` | `start-step` (closing the previous step; none for a plugin's own call) / `message-metadata` with the usage so far |
 * | `TEXT_BLOCK_*` | `text-start` / `text-delta` / `text-end` |
 * | `THINKING_BLOCK_*` | `reasoning-start` / `reasoning-delta` / `reasoning-end` |
 * | `DATA_BLOCK_*` | `file` (a `data:` URL) at the block's end |
 * | `TOOL_CALL_START` / `_DELTA` / `_END` | `tool-input-start` / `tool-input-delta` / `tool-input-available` (`tool-input-error` for input that is not JSON) |
 * | `TOOL_RESULT_END` | `tool-output-available` (success), `tool-output-error` (error, interrupted), `tool-output-denied` (denied) |
 * | `REQUIRE_USER_CONFIRM` | `tool-approval-request` per call (`approvalId` = the tool call id) |
 * | `USER_CONFIRM_RESULT` (a logged resume) | `tool-approval-response` per answer |
 * | `REPLY_SNAPSHOT` | the checkpointed message replayed as chunks |
 * | `CUSTOM` | a `data-<name>` part |
 * | `REPLY_END` + run end | `finish` with `finishReason` and metadata; `abort` before it when interrupted, `error` when failed |
 *
 * Tool results, resume inputs and a reply end that come before anything else are held until the next
 * event: when it is the `REPLY_START` of another reply, they closed an earlier, unfinished reply that the
 * new one replaced, and are dropped (the client never saw that reply in this stream).
 */
export class UIMessageMapper {
  private readonly reasoning: boolean;
  private replyId: string | null = null;
  private started = false;
  private stepOpen = false;
  private usage: Usage | null;
  private end: {
    finishedReason: ReplyFinishedReason;
    error: ErrorInfo | null;
    structuredOutput: unknown;
  } | null = null;
  /** Events that came before anything else, until it is clear which reply they belong to. */
  private held: Array<AgentEvent | InputEvent> = [];
  private paused = false;
  private readonly inputs = new Map<string, { name: string; text: string }>();
  private readonly outputs = new Map<string, Array<TextBlock | DataBlock>>();
  private readonly files = new Map<string, { mediaType: string; data: string }>();
  private readonly skippedBlocks = new Set<string>();

  constructor(options: UIMessageMapperOptions = {}) {
    this.reasoning = options.reasoning ?? true;
    this.usage = options.usage ? { ...options.usage } : null;
  }

  /** The chunks for one agentkit event (or a resume input event that was logged with the run). */
  push(event: AgentEvent | InputEvent): UIMessageChunk[] {
    const out: UIMessageChunk[] = [];
    if (!this.started) {
      // Results and an end before anything else may close an earlier, unfinished reply that a new one
      // replaces (then this stream never shows them), or continue the reply this stream is about: wait.
      if (HELD.has(event.type)) {
        this.held.push(event);
        return out;
      }
      const held = this.held;
      this.held = [];
      const replaced =
        event.type === 'REPLY_START' &&
        held.some((e) => e.replyId !== undefined && e.replyId !== event.replyId);
      if (!replaced) for (const e of held) this.apply(e, out);
    }
    this.apply(event, out);
    return out;
  }

  private apply(event: AgentEvent | InputEvent, out: UIMessageChunk[]): void {
    switch (event.type) {
      case 'REPLY_START':
        this.open(event.replyId, out);
        break;
      case 'REPLY_SNAPSHOT':
        this.open(event.replyId, out);
        this.replay(event.message, out);
        break;
      case 'REPLY_END':
        this.open(event.replyId, out);
        this.end = {
          finishedReason: event.finishedReason,
          error: event.error,
          structuredOutput: event.structuredOutput,
        };
        break;
      case 'MODEL_CALL_START':
        this.open(event.replyId, out);
        // A plugin's own call (a compression summary) writes nothing into the message: no step of its own.
        if (event.plugin !== undefined) break;
        if (this.stepOpen) out.push({ type: 'finish-step' });
        out.push({ type: 'start-step' });
        this.stepOpen = true;
        break;
      case 'MODEL_CALL_END':
        this.usage = addUsage(this.usage ?? emptyUsage(), event.usage);
        out.push({ type: 'message-metadata', messageMetadata: { usage: { ...this.usage } } });
        break;
      case 'TEXT_BLOCK_START':
        this.open(event.replyId, out);
        out.push({ type: 'text-start', id: event.blockId });
        break;
      case 'TEXT_BLOCK_DELTA':
        out.push({ type: 'text-delta', id: event.blockId, delta: event.delta });
        break;
      case 'TEXT_BLOCK_END':
        out.push({ type: 'text-end', id: event.blockId });
        break;
      case 'THINKING_BLOCK_START':
        this.open(event.replyId, out);
        if (this.reasoning) out.push({ type: 'reasoning-start', id: event.blockId });
        else this.skippedBlocks.add(event.blockId);
        break;
      case 'THINKING_BLOCK_DELTA':
        if (!this.skippedBlocks.has(event.blockId))
          out.push({ type: 'reasoning-delta', id: event.blockId, delta: event.delta });
        break;
      case 'THINKING_BLOCK_END':
        if (!this.skippedBlocks.delete(event.blockId)) out.push({ type: 'reasoning-end', id: event.blockId });
        break;
      case 'DATA_BLOCK_START':
        this.open(event.replyId, out);
        this.files.set(event.blockId, { mediaType: event.mediaType, data: '' });
        break;
      case 'DATA_BLOCK_DELTA': {
        const file = this.files.get(event.blockId);
        if (file) file.data = concatBase64(file.data, event.data);
        break;
      }
      case 'DATA_BLOCK_END': {
        const file = this.files.get(event.blockId);
        this.files.delete(event.blockId);
        if (file)
          out.push({ type: 'file', mediaType: file.mediaType, url: dataUrl(file.mediaType, file.data) });
        break;
      }
      case 'TOOL_CALL_START':
        this.open(event.replyId, out);
        this.inputs.set(event.toolCallId, { name: event.toolCallName, text: '' });
        out.push({ type: 'tool-input-start', toolCallId: event.toolCallId, toolName: event.toolCallName });
        break;
      case 'TOOL_CALL_DELTA': {
        const input = this.inputs.get(event.toolCallId);
        if (input) input.text += event.delta;
        out.push({ type: 'tool-input-delta', toolCallId: event.toolCallId, inputTextDelta: event.delta });
        break;
      }
      case 'TOOL_CALL_END': {
        const input = this.inputs.get(event.toolCallId);
        if (input) out.push(inputChunk(event.toolCallId, input.name, input.text));
        break;
      }
      case 'TOOL_RESULT_START':
        this.open(event.replyId, out);
        this.outputs.set(event.toolCallId, []);
        if (event.input !== undefined) {
          // A hook replaced the model's input: the call runs with this one.
          this.inputs.set(event.toolCallId, { name: event.toolCallName, text: event.input });
          out.push(inputChunk(event.toolCallId, event.toolCallName, event.input));
        }
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
        });
        break;
      case 'TOOL_RESULT_END': {
        const output = event.output ?? this.outputs.get(event.toolCallId) ?? [];
        this.outputs.delete(event.toolCallId);
        out.push(outputChunk(event.toolCallId, event.state, output));
        break;
      }
      case 'REQUIRE_USER_CONFIRM':
        this.open(event.replyId, out);
        this.paused = true;
        for (const call of event.toolCalls) {
          const known = this.inputs.get(call.id);
          // What the user approves is what runs: show the input as the pause has it.
          if (known?.text !== call.input) {
            this.inputs.set(call.id, { name: call.name, text: call.input });
            out.push(inputChunk(call.id, call.name, call.input));
          }
          out.push({ type: 'tool-approval-request', approvalId: call.id, toolCallId: call.id });
        }
        break;
      case 'REQUIRE_EXTERNAL_EXECUTION':
        this.open(event.replyId, out);
        this.paused = true;
        break;
      case 'USER_CONFIRM_RESULT':
        if (event.replyId !== undefined) this.open(event.replyId, out);
        for (const r of event.confirmResults)
          out.push({ type: 'tool-approval-response', approvalId: r.toolCall.id, approved: r.confirmed });
        break;
      case 'CUSTOM':
        this.open(event.replyId, out);
        out.push({ type: `data-${event.name}`, data: event.value });
        break;
      default:
        break; // hints are for the model; EXCEED_MAX_ITERS precedes REPLY_END; other inputs need nothing
    }
  }

  /**
   * The chunks that end the stream of a run: `finish` (after `abort` for an interrupted reply, after
   * `error` for a failed one) with the message metadata. Without `run`, the outcome is read from the
   * events (a reply that ended, or paused for tool approvals or client-side results).
   */
  finish(run?: RunOutcome): UIMessageChunk[] {
    const out: UIMessageChunk[] = [];
    for (const e of this.held) this.apply(e, out);
    this.held = [];
    if (this.replyId !== null) this.open(this.replyId, out);
    if (this.stepOpen) out.push({ type: 'finish-step' });
    this.stepOpen = false;
    let finishReason: Finish;
    if (run?.status === 'failed') {
      out.push({ type: 'error', errorText: run.error?.message ?? 'The reply failed.' });
      finishReason = 'error';
    } else if (run?.status === 'suspended') {
      out.push({
        type: 'abort',
        reason: 'The server stopped before the reply finished; send again to continue it.',
      });
      finishReason = 'interrupted';
    } else if (this.end) {
      finishReason = FINISH_REASON[this.end.finishedReason];
      if (this.end.finishedReason === 'interrupted')
        out.push({ type: 'abort', reason: 'The reply was interrupted.' });
      else if (this.end.finishedReason === 'error')
        out.push({ type: 'error', errorText: this.end.error?.message ?? 'The reply failed.' });
    } else finishReason = this.paused || run?.status === 'paused' ? 'tool-calls' : 'other';
    const metadata: AgentkitMessageMetadata = {
      usage: this.usage ? { ...this.usage } : null,
      finishedReason: this.end?.finishedReason ?? null,
      ...(this.end?.error ? { error: this.end.error } : {}),
      ...(this.end && this.end.structuredOutput !== null && this.end.structuredOutput !== undefined
        ? { structuredOutput: this.end.structuredOutput }
        : {}),
    };
    out.push({ type: 'finish', finishReason, messageMetadata: metadata });
    this.end = null;
    this.paused = false;
    return out;
  }

  /** The output streamed so far for a call (a resumed call's result starts in an earlier stream). */
  private output(toolCallId: string): Array<TextBlock | DataBlock> {
    let output = this.outputs.get(toolCallId);
    if (!output) this.outputs.set(toolCallId, (output = []));
    return output;
  }

  private open(replyId: string, out: UIMessageChunk[]): void {
    this.replyId ??= replyId;
    if (this.started) return;
    this.started = true;
    out.push({ type: 'start', messageId: this.replyId });
  }

  /** The chunks that rebuild a checkpointed reply message. */
  private replay(message: Msg, out: UIMessageChunk[]): void {
    const results = new Map<string, Extract<Msg['content'][number], { type: 'tool_result' }>>();
    for (const block of message.content) if (block.type === 'tool_result') results.set(block.id, block);
    out.push({ type: 'start-step' });
    this.stepOpen = true;
    for (const block of message.content) {
      switch (block.type) {
        case 'text':
          out.push(
            { type: 'text-start', id: block.id },
            { type: 'text-delta', id: block.id, delta: block.text },
            { type: 'text-end', id: block.id },
          );
          break;
        case 'thinking':
          if (this.reasoning)
            out.push(
              { type: 'reasoning-start', id: block.id },
              { type: 'reasoning-delta', id: block.id, delta: block.thinking },
              { type: 'reasoning-end', id: block.id },
            );
          break;
        case 'data':
          out.push({
            type: 'file',
            mediaType: block.source.mediaType,
            url:
              block.source.type === 'url'
                ? block.source.url
                : dataUrl(block.source.mediaType, block.source.data),
          });
          break;
        case 'tool_call':
          this.inputs.set(block.id, { name: block.name, text: block.input });
          out.push(
            { type: 'tool-input-start', toolCallId: block.id, toolName: block.name },
            inputChunk(block.id, block.name, block.input),
          );
          if (block.state === 'asking') {
            this.paused = true;
            out.push({ type: 'tool-approval-request', approvalId: block.id, toolCallId: block.id });
          } else if (block.state === 'submitted') this.paused = true;
          break;
        case 'tool_result':
          if (block.state !== 'running') out.push(outputChunk(block.id, block.state, block.output));
          break;
        default:
          break;
      }
    }
    if (message.usage) this.usage = { ...message.usage };
  }
}

/** `tool-input-available`, or `tool-input-error` when the input is not JSON. */
function inputChunk(toolCallId: string, toolName: string, text: string): UIMessageChunk {
  try {
    return {
      type: 'tool-input-available',
      toolCallId,
      toolName,
      input: JSON.parse(text === '' ? '{}' : text),
    };
  } catch {
    return {
      type: 'tool-input-error',
      toolCallId,
      toolName,
      input: text,
      errorText: 'The tool input is not valid JSON.',
    };
  }
}

function outputChunk(
  toolCallId: string,
  state: ToolResultState,
  output: Array<TextBlock | DataBlock>,
): UIMessageChunk {
  if (state === 'denied') return { type: 'tool-output-denied', toolCallId };
  if (state === 'success') return { type: 'tool-output-available', toolCallId, output: outputValue(output) };
  const text = output
    .filter((b): b is TextBlock => b.type === 'text')
    .map((b) => b.text)
    .join('');
  return {
    type: 'tool-output-error',
    toolCallId,
    errorText: text || (state === 'interrupted' ? 'The tool call was interrupted.' : 'The tool call failed.'),
  };
}

/** A tool's output for the UI: its text when it is all text, else its parts (text and files). */
function outputValue(output: Array<TextBlock | DataBlock>): unknown {
  if (output.every((b) => b.type === 'text')) return output.map((b) => b.text).join('');
  return output.map((b) =>
    b.type === 'text'
      ? { type: 'text', text: b.text }
      : {
          type: 'file',
          mediaType: b.source.mediaType,
          url: b.source.type === 'url' ? b.source.url : dataUrl(b.source.mediaType, b.source.data),
          ...(b.name ? { filename: b.name } : {}),
        },
  );
}

function dataUrl(mediaType: string, base64: string): string {
  return `data:${mediaType};base64,${base64}`;
}

/** Base64 chunks are encoded separately (each may end in padding): join their bytes, not their text. */
function concatBase64(a: string, b: string): string {
  if (!a) return b;
  return btoa(atob(a) + atob(b));
}
