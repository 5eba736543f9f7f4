import type { ChatModel, ModelChunk, ModelRequest, TokenCountInput } from '../model';
import { sleep } from '../sleep';
import { normalizeUsage, type Usage } from '../usage';

/**
 * One scripted model response: a list of chunks, an error to throw, or a function of the request.
 * `delayMs` waits before each chunk (abort-aware), to test interrupts and timing.
 */
export type ScriptedResponse =
  | ModelChunk[]
  | { chunks: ModelChunk[]; delayMs?: number | undefined; errorAfter?: Error | undefined }
  | { error: Error }
  | ((
      request: ModelRequest,
    ) =>
      | ModelChunk[]
      | { chunks: ModelChunk[]; delayMs?: number | undefined; errorAfter?: Error | undefined }
      | { error: Error });

/** Options of {@link ScriptedModel}. */
export interface ScriptedModelOptions {
  name?: string | undefined;
  contextSize?: number | undefined;
  /** Overrides token counting (default: core's estimate). */
  countTokens?: ((input: TokenCountInput) => number) | undefined;
  /** When the script runs out: throw (default) or repeat the last response. */
  onExhausted?: 'throw' | 'repeat' | undefined;
  /**
   * Record every request (deep copies of its messages, so a test sees them as sent). Default `true`;
   * turn off for benchmarks, where copying the history would cost more than the framework.
   */
  recordRequests?: boolean | undefined;
}

/** A snapshot of a request the scripted model received (messages deep-copied). */
export type RecordedRequest = Omit<ModelRequest, 'signal'>;

/**
 * A deterministic model for tests, examples and benchmarks: plays scripted responses in order and
 * records every request it got.
 * @example
 * const model = new ScriptedModel([
 *   [toolCallChunk('add', { a: 1, b: 2 })],
 *   textChunks('The sum is 3.'),
 * ]);
 */
export class ScriptedModel implements ChatModel {
  readonly name: string;
  readonly contextSize: number;
  /** Every request received, in order. */
  readonly requests: RecordedRequest[] = [];
  readonly countTokens?: (input: TokenCountInput) => number;
  private readonly script: ScriptedResponse[];
  private readonly onExhausted: 'throw' | 'repeat';
  private readonly recordRequests: boolean;
  private position = 0;

  constructor(script: ScriptedResponse[], options: ScriptedModelOptions = {}) {
    this.script = script;
    this.name = options.name ?? 'scripted-model';
    this.contextSize = options.contextSize ?? 32_768;
    this.onExhausted = options.onExhausted ?? 'throw';
    this.recordRequests = options.recordRequests ?? true;
    if (options.countTokens) this.countTokens = options.countTokens;
  }

  /** Appends responses to the script. */
  push(...responses: ScriptedResponse[]): void {
    this.script.push(...responses);
  }

  /** How many responses have been played. */
  get callCount(): number {
    return this.position;
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelChunk> {
    if (this.recordRequests)
      this.requests.push({
        systemPrompt: request.systemPrompt,
        messages: structuredClone(request.messages),
        tools: request.tools,
        toolChoice: request.toolChoice,
      });
    let step = this.script[this.position];
    if (step === undefined) {
      if (this.onExhausted === 'repeat' && this.script.length > 0)
        step = this.script[this.script.length - 1]!;
      else throw new Error(`ScriptedModel: no scripted response left for call #${this.position + 1}.`);
    }
    this.position++;
    const resolved = typeof step === 'function' ? step(request) : step;
    if ('error' in resolved) throw resolved.error;
    const { chunks, delayMs = 0, errorAfter } = Array.isArray(resolved) ? { chunks: resolved } : resolved;
    for (const chunk of chunks) {
      if (delayMs > 0) await sleep(delayMs, request.signal);
      if (request.signal.aborted) throw request.signal.reason ?? abortError();
      yield chunk;
    }
    if (errorAfter) throw errorAfter;
  }
}

function abortError(): Error {
  return new DOMException('The operation was aborted.', 'AbortError');
}

/** Text split into chunks of about `size` characters (default: one chunk per word). */
export function textChunks(text: string, size?: number): ModelChunk[] {
  const parts = size ? (text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? []) : text.split(/(?<=\s)/);
  return parts.map((delta) => ({ type: 'text', delta }));
}

/** Thinking text as one chunk. */
export function thinkingChunk(thinking: string): ModelChunk {
  return { type: 'thinking', delta: thinking };
}

let callCounter = 0;
/**
 * A complete tool call as one chunk. `input` is JSON-encoded unless it is already a string (so invalid
 * JSON can be scripted).
 */
export function toolCallChunk(name: string, input: unknown, id = `call_${++callCounter}`): ModelChunk {
  return { type: 'tool_call', id, name, delta: typeof input === 'string' ? input : JSON.stringify(input) };
}

/** A usage chunk. */
export function usageChunk(usage: Partial<Usage>): ModelChunk {
  return { type: 'usage', usage: normalizeUsage(usage) };
}
