import type { Content, GoogleGenAI } from '@google/genai';
import { estimateBlockTokens, estimateTextTokens, type TokenCountInput } from '@agentkit/core';
import { stableHash } from './stable-tool-call-id';
import { toGeminiContents } from './to-gemini-contents';

const CACHE_LIMIT = 2048;
const MAX_IN_FLIGHT = 4;

/** Core's estimate of a count input: UTF-8 bytes / 4 per text, a fixed amount per data block. */
export function estimateTokens(input: TokenCountInput): number {
  let n = estimateTextTokens(input.systemPrompt);
  if (input.tools.length > 0) n += estimateTextTokens(JSON.stringify(input.tools));
  for (const msg of input.messages) for (const block of msg.content) n += estimateBlockTokens(block);
  return n;
}

/**
 * The contents a count request sends: the system prompt and the tool declarations as text turns (the
 * Gemini API counts neither in `config`), then the messages as `generateContent` would send them.
 */
function countContents(input: TokenCountInput): Content[] {
  const contents: Content[] = [];
  if (input.systemPrompt) contents.push({ role: 'user', parts: [{ text: input.systemPrompt }] });
  if (input.tools.length > 0) contents.push({ role: 'user', parts: [{ text: JSON.stringify(input.tools) }] });
  contents.push(...toGeminiContents(input.messages));
  return contents;
}

/**
 * Token counts from Gemini's count-tokens endpoint (`models.countTokens`), cached by content. Core's
 * `countTokens` contract is synchronous, so {@link GeminiTokenCounter.count} answers at once: the exact
 * count when this content was counted before, else core's estimate scaled by what the endpoint has
 * answered so far (the ratio of exact to estimated tokens), while the endpoint counts the content in the
 * background for next time. {@link GeminiTokenCounter.countExact} waits for the endpoint. A failed count
 * falls back to the estimate; after three failures in a row the endpoint is no longer asked.
 */
export class GeminiTokenCounter {
  private readonly cache = new Map<string, number>();
  private readonly pending = new Map<string, Promise<number>>();
  private exactSum = 0;
  private estimateSum = 0;
  private failuresInARow = 0;

  constructor(
    private readonly client: GoogleGenAI,
    private readonly model: string,
  ) {}

  /** Whether the endpoint is still asked (false after three failures in a row). */
  get usesEndpoint(): boolean {
    return this.failuresInARow < 3;
  }

  /** Exact tokens per estimated token, from the endpoint's answers so far (1 before any). */
  get ratio(): number {
    return this.estimateSum > 0 ? Math.min(4, Math.max(0.25, this.exactSum / this.estimateSum)) : 1;
  }

  /** Counts at once: cached exact count, else the scaled estimate (and counts exactly in the background). */
  count(input: TokenCountInput): number {
    const contents = countContents(input);
    if (contents.length === 0) return 0;
    const key = stableHash(JSON.stringify(contents));
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    const estimate = estimateTokens(input);
    if (this.usesEndpoint && this.pending.size < MAX_IN_FLIGHT)
      this.ask(key, contents, estimate).catch(() => undefined);
    return Math.round(estimate * this.ratio);
  }

  /** Counts through the endpoint (cached); core's estimate when the endpoint fails or is no longer asked. */
  async countExact(input: TokenCountInput, signal?: AbortSignal): Promise<number> {
    const contents = countContents(input);
    if (contents.length === 0) return 0;
    const key = stableHash(JSON.stringify(contents));
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    const estimate = estimateTokens(input);
    if (!this.usesEndpoint) return estimate;
    return this.ask(key, contents, estimate, signal);
  }

  private ask(key: string, contents: Content[], estimate: number, signal?: AbortSignal): Promise<number> {
    const running = this.pending.get(key);
    if (running) return running;
    const request = this.client.models
      .countTokens({ model: this.model, contents, ...(signal ? { config: { abortSignal: signal } } : {}) })
      .then(
        (response) => {
          const total = response.totalTokens;
          if (typeof total !== 'number' || !Number.isFinite(total) || total < 0)
            throw new Error('count-tokens answer without totalTokens');
          this.failuresInARow = 0;
          this.exactSum += total;
          this.estimateSum += estimate;
          this.remember(key, total);
          return total;
        },
        (error: unknown) => {
          if (signal?.aborted) throw error;
          this.failuresInARow++;
          return estimate;
        },
      )
      .catch((error: unknown) => {
        if (signal?.aborted) throw error;
        this.failuresInARow++;
        return estimate;
      })
      .finally(() => this.pending.delete(key));
    this.pending.set(key, request);
    return request;
  }

  private remember(key: string, tokens: number): void {
    if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, tokens);
  }
}
