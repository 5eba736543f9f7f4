import { type ModelChunk, ModelError, type Usage, newId } from '@agentkit/core';
import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { openaiData } from './provider-data';
import { chatUsage } from './usage';

/** The delta fields OpenAI-compatible reasoning servers add (DeepSeek, Qwen, vLLM, OpenRouter). */
type ReasoningDelta = { reasoning_content?: unknown | undefined; reasoning?: unknown | undefined };

/**
 * Turns a Chat Completions chunk stream into model chunks: `content` → text, `reasoning_content` /
 * `reasoning` → thinking, index-keyed tool-call deltas → id-keyed `tool_call` chunks, and the usage
 * (`stream_options.include_usage`) → one `usage` chunk at the end. A stream that ends without a
 * `finish_reason` was cut off: it throws a `connection` {@link ModelError}; one without content that
 * the content filter or the token limit ended throws `invalid_request` ({@link throwIfWithheld}).
 */
export async function* chatChunks(stream: AsyncIterable<ChatCompletionChunk>): AsyncGenerator<ModelChunk> {
  const idsByIndex = new Map<number, string>();
  const usedIds = new Set<string>();
  let usage: Usage | undefined;
  let finished = false;
  let finishReason: string | undefined;
  let produced = false;
  let last: 'text' | 'thinking' | 'tool' | undefined;
  for await (const chunk of stream) {
    if (chunk.usage) usage = chatUsage(chunk.usage);
    const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
    if (!choice) continue;
    const delta = (choice.delta ?? {}) as ChatCompletionChunk.Choice.Delta & ReasoningDelta;
    const reasoningField =
      typeof delta.reasoning_content === 'string' && delta.reasoning_content
        ? 'reasoning_content'
        : typeof delta.reasoning === 'string' && delta.reasoning
          ? 'reasoning'
          : undefined;
    if (reasoningField) {
      const text = delta[reasoningField] as string;
      yield last === 'thinking'
        ? { type: 'thinking', delta: text }
        : { type: 'thinking', delta: text, providerData: openaiData({ field: reasoningField }) };
      last = 'thinking';
      produced = true;
    }
    const text =
      (typeof delta.content === 'string' ? delta.content : '') +
      (typeof delta.refusal === 'string' ? delta.refusal : '');
    if (text) {
      yield { type: 'text', delta: text };
      last = 'text';
      produced = true;
    }
    // `position` stands in for `index` on servers that omit it.
    for (const [position, call] of (delta.tool_calls ?? []).entries()) {
      if (typeof call !== 'object' || call === null) continue;
      const index = typeof call.index === 'number' ? call.index : position;
      // Servers' JSON is taken as it comes: an id or name that is not a string is absent, and arguments
      // sent as a JSON object (some compatible servers) are its text.
      const rawName = call.function?.name;
      const name = typeof rawName === 'string' && rawName ? rawName : undefined;
      const rawArgs: unknown = call.function?.arguments;
      const args = typeof rawArgs === 'string' ? rawArgs : rawArgs == null ? '' : JSON.stringify(rawArgs);
      const callId = typeof call.id === 'string' ? call.id : undefined;
      let id = idsByIndex.get(index);
      // A new call: first sight of the index, or a server reusing an index for another call.
      if (id === undefined || (callId && callId !== id && name)) {
        id = callId || `call_${newId()}`;
        // Chunks are keyed by id: a server that gives two calls one id would merge their arguments.
        for (let n = 2; usedIds.has(id); n++) id = `${callId}_${n}`;
        usedIds.add(id);
        idsByIndex.set(index, id);
        yield { type: 'tool_call', id, ...(name ? { name } : {}), delta: args };
      } else if (args) {
        yield { type: 'tool_call', id, delta: args };
      }
      last = 'tool';
      produced = true;
    }
    if (choice.finish_reason) {
      finished = true;
      finishReason = choice.finish_reason;
    }
  }
  if (!finished) {
    throw new ModelError('connection', 'The model stream ended before the response was complete.');
  }
  if (!produced) throwIfWithheld(finishReason === 'content_filter', finishReason === 'length');
  if (usage) yield { type: 'usage', usage };
}

/**
 * Throws for a response with no content that a retry would not change: the content filter withheld
 * it, or the output token limit ran out first (reasoning models can spend it all on reasoning). Both
 * are non-retryable `invalid_request` errors: the request has to change.
 */
export function throwIfWithheld(filtered: boolean, outOfTokens: boolean): void {
  if (filtered)
    throw new ModelError('invalid_request', "The provider's content filter withheld the response.", {
      retryable: false,
    });
  if (outOfTokens)
    throw new ModelError(
      'invalid_request',
      'The output token limit was reached before the model produced any content; raise maxOutputTokens.',
      { retryable: false },
    );
}
