import { isBase64 } from './base64-append';
import type { DataBlock, TextBlock, ThinkingBlock, ToolCallBlock } from './blocks';
import type { AgentLimits } from './agent-limits';
import { ModelError } from './errors/model-error';
import type { AgentEvent } from './events';
import { newId } from './ids';
import type { ModelChunk } from './model';
import type { Msg } from './msg';
import { emptyUsage, normalizeUsage, type Usage } from './usage';

/**
 * Turns one model call's chunks into block events, applying each to the reply message. Synchronous, so
 * the loop can feed it straight from the model's iterator: per delta it costs a string append, plus one
 * event object when someone streams. A chunk of another kind closes the open text or thinking block
 * (text, thinking and tool calls keep their order); `newBlock` closes the open block of its kind.
 */
export class ModelStream {
  usage: Usage = emptyUsage();
  /** Whether the response had any content (text, thinking, tool calls or data). */
  produced = false;
  /** Whether the response had text or data: something for the user (an answer when it has no tool calls). */
  sawAnswer = false;
  sawToolCall = false;
  /** The tool calls of this response, in order. */
  readonly callBlocks: ToolCallBlock[] = [];
  /** Characters streamed so far, against `limits.maxResponseChars`. */
  private chars = 0;
  private text: TextBlock | undefined;
  private thinking: ThinkingBlock | undefined;
  private data: DataBlock | undefined;
  private readonly calls = new Map<string, ToolCallBlock>();

  constructor(
    private readonly msg: Msg,
    /** Applies an event to the message (the agent's reducer) and streams it. */
    private readonly record: (event: AgentEvent) => void,
    /** Streams an event already applied here (deltas), or `undefined` when nobody streams. */
    private readonly publish: ((event: AgentEvent) => void) | undefined,
    /** The tool-call ids the reply already uses; new calls are added. A set, so a long reply stays O(1). */
    private readonly callIds: Set<string>,
    private readonly limits: Pick<
      AgentLimits,
      'maxResponseChars' | 'maxToolInputChars' | 'maxToolCallsPerResponse'
    >,
    /**
     * The id of the message's first block, when this call makes it: the message's own id (unique, and no
     * second string to keep for a one-block answer). `undefined` when the message has blocks already.
     */
    private firstBlockId: string | undefined,
  ) {}

  private blockId(): string {
    const id = this.firstBlockId ?? newId();
    this.firstBlockId = undefined;
    return id;
  }

  /**
   * Applies one chunk. Throws {@link ResponseCutOff} (applying nothing) when the chunk would take the
   * response past `maxResponseChars` or past 100 × `maxToolCallsPerResponse` calls, and a `ModelError` for
   * data that is not base64 or a chunk with a field of the wrong type.
   */
  handle(chunk: ModelChunk): void {
    const replyId = this.msg.id;
    // An adapter passes a provider's JSON on: a field of the wrong type would corrupt the saved state.
    if (malformed(chunk))
      throw new ModelError('upstream', 'The model sent a malformed response chunk.', { retryable: false });
    if (chunk.type === 'usage') return void (this.usage = normalizeUsage(chunk.usage));
    // Provider data (signatures, reasoning items) and new blocks count too: a stream of empty blocks
    // carrying data would otherwise grow the message without bound.
    const size =
      ((chunk.type === 'data' ? chunk.data?.length : chunk.delta?.length) ?? 0) +
      (chunk.providerData ? jsonSize(chunk.providerData) : 0) +
      ('newBlock' in chunk && chunk.newBlock ? 64 : 0);
    if ((this.chars += size) > this.limits.maxResponseChars) throw new ResponseCutOff();
    switch (chunk.type) {
      case 'text': {
        let text = this.text;
        // Hot path: another delta of the open text block.
        if (text && !chunk.newBlock && !chunk.providerData) {
          if (chunk.delta) {
            text.text += chunk.delta;
            this.publish?.({ type: 'TEXT_BLOCK_DELTA', replyId, blockId: text.id, delta: chunk.delta });
          }
          return;
        }
        this.produced = true;
        if (chunk.newBlock) this.closeText();
        this.closeThinking();
        if (!text || chunk.newBlock) {
          this.record({ type: 'TEXT_BLOCK_START', replyId, blockId: this.blockId() });
          text = this.text = this.msg.content[this.msg.content.length - 1] as TextBlock;
        }
        if (chunk.providerData) text.providerData = { ...text.providerData, ...chunk.providerData };
        this.sawAnswer = true;
        if (chunk.delta)
          this.record({ type: 'TEXT_BLOCK_DELTA', replyId, blockId: text.id, delta: chunk.delta });
        return;
      }
      case 'thinking': {
        this.produced = true;
        this.closeText();
        if (chunk.newBlock) this.closeThinking();
        if (!this.thinking) {
          this.record({ type: 'THINKING_BLOCK_START', replyId, blockId: this.blockId() });
          this.thinking = this.msg.content[this.msg.content.length - 1] as ThinkingBlock;
        }
        const thinking = this.thinking;
        if (chunk.providerData) thinking.providerData = { ...thinking.providerData, ...chunk.providerData };
        if (chunk.delta) {
          thinking.thinking += chunk.delta;
          this.publish?.({ type: 'THINKING_BLOCK_DELTA', replyId, blockId: thinking.id, delta: chunk.delta });
        }
        return;
      }
      case 'tool_call': {
        let call = this.calls.get(chunk.id);
        if (!call) {
          // A runaway response (calls cost no characters when their arguments are empty): every call past
          // the per-response limit needs an error result, so past 100 times that limit it is cut off.
          const most = 100 * this.limits.maxToolCallsPerResponse;
          if (this.callBlocks.length >= most) throw new ResponseCutOff(`${most} tool calls`);
          this.sawToolCall = true;
          this.produced = true;
          this.closeText();
          this.closeThinking();
          // Call ids must be unique within the reply; a model that reuses one gets a suffixed id
          // (letters, digits, `_` and `-` only, which every provider accepts).
          const given = chunk.id || `call_${newId()}`;
          let id = given;
          for (let n = 2; this.callIds.has(id); n++) id = `${given}_${n}`;
          this.callIds.add(id);
          this.record({ type: 'TOOL_CALL_START', replyId, toolCallId: id, toolCallName: chunk.name ?? '' });
          call = this.msg.content[this.msg.content.length - 1] as ToolCallBlock;
          this.calls.set(chunk.id, call);
          this.callBlocks.push(call);
        }
        if (chunk.providerData) call.providerData = { ...call.providerData, ...chunk.providerData };
        // Arguments past the limit are not kept: one character more than it marks the call as too long.
        const room = this.limits.maxToolInputChars + 1 - call.input.length;
        const delta =
          chunk.delta && room < chunk.delta.length ? chunk.delta.slice(0, Math.max(0, room)) : chunk.delta;
        if (delta) {
          call.input += delta;
          this.publish?.({ type: 'TOOL_CALL_DELTA', replyId, toolCallId: call.id, delta });
        }
        return;
      }
      case 'data': {
        if (typeof chunk.data !== 'string' || !isBase64(chunk.data))
          throw new ModelError('upstream', 'The model sent a data chunk that is not base64.', {
            retryable: false,
          });
        this.produced = this.sawAnswer = true;
        if (chunk.newBlock) this.closeData();
        if (!this.data) {
          this.record({
            type: 'DATA_BLOCK_START',
            replyId,
            blockId: this.blockId(),
            mediaType: chunk.mediaType,
          });
          this.data = this.msg.content[this.msg.content.length - 1] as DataBlock;
        }
        if (chunk.providerData) this.data.providerData = { ...this.data.providerData, ...chunk.providerData };
        this.record({
          type: 'DATA_BLOCK_DELTA',
          replyId,
          blockId: this.data.id,
          data: chunk.data,
          mediaType: chunk.mediaType,
        });
        return;
      }
    }
  }

  /** Closes every open block: text, thinking, tool calls, data (in that order). */
  close(): void {
    this.closeText();
    this.closeThinking();
    for (const call of this.calls.values()) {
      this.record({
        type: 'TOOL_CALL_END',
        replyId: this.msg.id,
        toolCallId: call.id,
        ...(call.providerData ? { providerData: call.providerData } : {}),
      });
    }
    this.calls.clear();
    this.closeData();
  }

  private closeData(): void {
    const data = this.data;
    if (!data) return;
    this.record({
      type: 'DATA_BLOCK_END',
      replyId: this.msg.id,
      blockId: data.id,
      ...(data.providerData ? { providerData: data.providerData } : {}),
    });
    this.data = undefined;
  }

  private closeText(): void {
    const text = this.text;
    if (!text) return;
    this.record({
      type: 'TEXT_BLOCK_END',
      replyId: this.msg.id,
      blockId: text.id,
      ...(text.providerData ? { providerData: text.providerData } : {}),
    });
    this.text = undefined;
  }

  private closeThinking(): void {
    const thinking = this.thinking;
    if (!thinking) return;
    this.record({
      type: 'THINKING_BLOCK_END',
      replyId: this.msg.id,
      blockId: thinking.id,
      ...(thinking.providerData ? { providerData: thinking.providerData } : {}),
    });
    this.thinking = undefined;
  }
}

const isStr = (v: unknown) => typeof v === 'string';

/** The length of a value as JSON; infinite for one that is not JSON (it could never be saved). */
function jsonSize(value: unknown): number {
  try {
    return JSON.stringify(value).length;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

/** Whether a chunk has a field of the wrong type (a delta, an id or name, a media type that is no string). */
function malformed(c: ModelChunk): boolean {
  if (typeof c !== 'object' || c === null) return true;
  const { delta, name } = c as { delta?: unknown; name?: unknown };
  if (delta !== undefined && !isStr(delta)) return true;
  if (c.type === 'tool_call') return !isStr(c.id) || (name != null && !isStr(name));
  return c.type === 'data' && !isStr(c.mediaType);
}

/** Thrown by {@link ModelStream.handle} when a response grows past `maxResponseChars`: the model turn cuts it off. */
export class ResponseCutOff extends Error {
  /** What the response exceeded, when not `maxResponseChars` (for the model's hint). */
  constructor(readonly exceeded?: string) {
    super();
  }
}
