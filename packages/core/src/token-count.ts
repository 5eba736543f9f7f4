import type { ContentBlock, DataBlock, TextBlock } from './blocks';
import type { ChatModel, TokenCountInput } from './model';
import type { Msg } from './msg';

/** Tokens counted for every data block (image, audio, file), wherever it sits. */
export const DATA_BLOCK_TOKENS = 2000;

const encoder = new TextEncoder();

/** Estimates the tokens of a text: UTF-8 bytes / 4, rounded. Cheap and provider-agnostic. */
export function estimateTextTokens(text: string): number {
  // ASCII fast path: one byte per char.
  let ascii = true;
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) {
      ascii = false;
      break;
    }
  }
  const bytes = ascii ? text.length : encoder.encode(text).length;
  return Math.floor(bytes / 4 + 0.5);
}

function partsTokens(parts: string | Array<TextBlock | DataBlock>): number {
  if (typeof parts === 'string') return estimateTextTokens(parts);
  let n = 0;
  for (const p of parts) n += p.type === 'text' ? estimateTextTokens(p.text) : DATA_BLOCK_TOKENS;
  return n;
}

/** Estimates the tokens of one block. */
export function estimateBlockTokens(block: ContentBlock): number {
  switch (block.type) {
    case 'text':
      return estimateTextTokens(block.text);
    case 'thinking':
      return estimateTextTokens(block.thinking);
    case 'data':
      return DATA_BLOCK_TOKENS;
    case 'hint':
      return partsTokens(block.hint);
    case 'tool_call':
      return estimateTextTokens(block.name) + estimateTextTokens(block.input);
    case 'tool_result':
      return partsTokens(block.output);
  }
}

interface MsgEntry {
  blocks: number;
  last: ContentBlock | undefined;
  /** Size of `last` when counted (with a model's own counter, where blocks are not cached one by one). */
  size?: number | undefined;
  tokens: number;
}

/**
 * Counts the tokens of model requests incrementally: each finished message is counted once and cached;
 * a message that grew (the current reply) recounts only its new blocks. So the cost of counting before a
 * model call grows with what changed, not with the whole history. Uses the model's `countTokens` when it
 * has one (per message), else core's estimate.
 */
export class TokenCounter {
  private readonly msgCache = new WeakMap<Msg, MsgEntry>();
  private readonly blockCache = new WeakMap<ContentBlock, { size: number; tokens: number }>();
  private fixed: { systemPrompt: string; tools: TokenCountInput['tools']; tokens: number } | undefined;
  private prefix: { context: readonly Msg[]; frozen: number; tokens: number } | undefined;

  constructor(private readonly model?: Pick<ChatModel, 'countTokens'>) {}

  /**
   * Tokens of a request over an append-only context: system prompt, tools, an optional lead message (the
   * compression summary) and `context`. Finished messages (`finishedAt` set) at the front are summed once
   * and kept, so a call costs what is new plus the open reply — not the whole history. Another context
   * array (after a compression) starts over; change old messages by replacing the array.
   */
  countContext(
    systemPrompt: string,
    tools: TokenCountInput['tools'],
    lead: Msg | undefined,
    context: readonly Msg[],
  ): number {
    let p = this.prefix;
    if (!p || p.context !== context || p.frozen > context.length)
      p = this.prefix = { context, frozen: 0, tokens: 0 };
    while (p.frozen < context.length && context[p.frozen]!.finishedAt !== null) {
      p.tokens += this.countMsg(context[p.frozen]!);
      p.frozen++;
    }
    let total = this.fixedTokens({ systemPrompt, tools, messages: [] }) + p.tokens;
    if (lead) total += this.countMsg(lead);
    for (let i = p.frozen; i < context.length; i++) total += this.countMsg(context[i]!);
    return total;
  }

  /** Tokens of a whole request: system prompt, tools and messages. */
  count(input: TokenCountInput): number {
    let total = this.fixedTokens(input);
    for (const msg of input.messages) total += this.countMsg(msg);
    return total;
  }

  /** Tokens of one message (cached). */
  countMsg(msg: Msg): number {
    if (this.model?.countTokens) {
      const hit = this.msgCache.get(msg);
      const last = msg.content[msg.content.length - 1];
      const size = last ? sizeOf(last) : 0;
      if (hit && hit.blocks === msg.content.length && hit.last === last && hit.size === size)
        return hit.tokens;
      const tokens = this.model.countTokens({ systemPrompt: '', messages: [msg], tools: [] });
      this.msgCache.set(msg, { blocks: msg.content.length, last, size, tokens });
      return tokens;
    }
    const hit = this.msgCache.get(msg);
    const n = msg.content.length;
    if (hit && hit.blocks === n && hit.last === msg.content[n - 1] && !this.grew(hit.last)) return hit.tokens;
    let tokens = 0;
    for (const block of msg.content) tokens += this.countBlock(block);
    this.msgCache.set(msg, { blocks: n, last: msg.content[n - 1], tokens });
    return tokens;
  }

  private grew(block: ContentBlock | undefined): boolean {
    if (!block) return false;
    const hit = this.blockCache.get(block);
    return !hit || hit.size !== sizeOf(block);
  }

  private countBlock(block: ContentBlock): number {
    const size = sizeOf(block);
    const hit = this.blockCache.get(block);
    if (hit && hit.size === size) return hit.tokens;
    const tokens = estimateBlockTokens(block);
    this.blockCache.set(block, { size, tokens });
    return tokens;
  }

  private fixedTokens(input: TokenCountInput): number {
    const f = this.fixed;
    if (f && f.systemPrompt === input.systemPrompt && f.tools === input.tools) return f.tokens;
    const tokens = this.model?.countTokens
      ? this.model.countTokens({ systemPrompt: input.systemPrompt, messages: [], tools: input.tools })
      : estimateTextTokens(input.systemPrompt) +
        (input.tools.length ? estimateTextTokens(JSON.stringify(input.tools)) : 0);
    this.fixed = { systemPrompt: input.systemPrompt, tools: input.tools, tokens };
    return tokens;
  }
}

// A cheap fingerprint of a block's countable size, to notice in-place edits (a confirmed call's input).
function sizeOf(block: ContentBlock): number {
  switch (block.type) {
    case 'text':
      return block.text.length;
    case 'thinking':
      return block.thinking.length;
    case 'tool_call':
      return block.input.length;
    case 'tool_result':
      return block.output.length;
    case 'hint':
      return typeof block.hint === 'string' ? block.hint.length : block.hint.length;
    default:
      return 0;
  }
}
