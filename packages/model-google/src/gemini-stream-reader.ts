import type { GenerateContentResponse, GenerateContentResponseUsageMetadata, Part } from '@google/genai';
import { ModelError, type ModelChunk, type ProviderData, type Usage } from '@agentkit/core';
import { normalizeUsage } from '@agentkit/core/model';
import { stableToolCallId } from './stable-tool-call-id';
import { SYNTHETIC_ID_KEY, THOUGHT_SIGNATURE_KEY } from './to-gemini-contents';

/** Maps Gemini's `usageMetadata` onto agentkit's {@link Usage}. */
export function usageFromMetadata(meta: GenerateContentResponseUsageMetadata | undefined): Usage {
  const thoughts = meta?.thoughtsTokenCount ?? 0;
  return normalizeUsage({
    // promptTokenCount already includes cached tokens; tool-use prompt tokens are input too.
    inputTokens: (meta?.promptTokenCount ?? 0) + (meta?.toolUsePromptTokenCount ?? 0),
    // candidatesTokenCount excludes thoughts; agentkit's output count includes reasoning.
    outputTokens: (meta?.candidatesTokenCount ?? 0) + thoughts,
    cacheInputTokens: meta?.cachedContentTokenCount ?? 0,
    reasoningTokens: thoughts,
  });
}

/** Finish reasons of a function call Gemini could not produce. */
const malformedCall = new Set(['MALFORMED_FUNCTION_CALL', 'UNEXPECTED_TOOL_CALL', 'MALFORMED_RESPONSE']);
/** Finish reasons of a response Gemini withheld or a request it refused. */
const blocked = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'LANGUAGE',
  'ESCALATION',
  'MISSING_THOUGHT_SIGNATURE',
]);

function signatureData(part: Part): ProviderData | undefined {
  return part.thoughtSignature ? { [THOUGHT_SIGNATURE_KEY]: part.thoughtSignature } : undefined;
}

/**
 * Turns the responses of one `generateContentStream` call into model chunks. Gemini streams whole parts:
 * text parts become `text` chunks, `thought: true` parts `thinking` chunks, each `functionCall` part one
 * `tool_call` chunk with the whole JSON arguments (and a stable made-up id when Gemini sent none), and
 * `inlineData` parts `data` chunks. A part's `thoughtSignature` travels in the chunk's `providerData`.
 * Usage is the running total Gemini reports; {@link finish} returns it as one `usage` chunk.
 */
export class GeminiStreamReader {
  private usage: GenerateContentResponseUsageMetadata | undefined;
  private finishReason: string | undefined;
  private blockReason: string | undefined;
  private callIndex = 0;
  private sawContent = false;
  /** Whether any response had a candidate: a stream of none ended normally but answered nothing. */
  private sawCandidate = false;
  /** Call ids of this response: chunks are keyed by id, so two calls with one id would merge into one. */
  private readonly callIds = new Set<string>();

  private seedValue: string | undefined;

  /**
   * @param seed returns a digest of the request (called at most once, when a call needs a made-up id), so
   * made-up ids differ between turns but not between replays.
   */
  constructor(private readonly seed: () => string) {}

  /** The chunks of one streamed response. */
  read(response: GenerateContentResponse): ModelChunk[] {
    if (response.usageMetadata) this.usage = response.usageMetadata;
    if (response.promptFeedback?.blockReason) this.blockReason = response.promptFeedback.blockReason;
    const candidate = response.candidates?.[0];
    if (!candidate) return [];
    this.sawCandidate = true;
    if (candidate.finishReason) this.finishReason = candidate.finishReason;
    const chunks: ModelChunk[] = [];
    for (const part of candidate.content?.parts ?? []) {
      const chunk = this.partChunk(part, response.responseId ?? '');
      if (chunk) {
        this.sawContent = true;
        chunks.push(chunk);
      }
    }
    return chunks;
  }

  private partChunk(part: Part, responseId: string): ModelChunk | undefined {
    const providerData = signatureData(part);
    if (part.functionCall) {
      const {
        id: given,
        name: rawName,
        args,
      } = part.functionCall as { id?: unknown; name?: unknown; args?: unknown };
      // An id or name that is not a string is absent (a nameless call gets an error result the model sees).
      const name = typeof rawName === 'string' ? rawName : '';
      const delta = JSON.stringify(args ?? {});
      const index = this.callIndex++;
      if (typeof given === 'string' && given) {
        let id = given;
        for (let n = 2; this.callIds.has(id); n++) id = `${given}_${n}`;
        this.callIds.add(id);
        return { type: 'tool_call', id, name, delta, ...(providerData ? { providerData } : {}) };
      }
      this.seedValue ??= this.seed();
      const id = stableToolCallId(this.seedValue, responseId, index, name, delta);
      return {
        type: 'tool_call',
        id,
        name,
        delta,
        providerData: { ...providerData, [SYNTHETIC_ID_KEY]: true },
      };
    }
    if (part.inlineData?.data) {
      // Gemini sends every inline part whole: each one is its own block (two images never merge).
      return {
        type: 'data',
        mediaType: part.inlineData.mimeType ?? 'application/octet-stream',
        data: part.inlineData.data,
        newBlock: true,
        ...(providerData ? { providerData } : {}),
      };
    }
    if (part.thought)
      return { type: 'thinking', delta: part.text ?? '', ...(providerData ? { providerData } : {}) };
    if (part.text !== undefined && (part.text.length > 0 || providerData))
      return { type: 'text', delta: part.text, ...(providerData ? { providerData } : {}) };
    // A bare signature (Gemini 3 may end a stream with one) belongs to the text just streamed.
    if (providerData) return { type: 'text', delta: '', providerData };
    return undefined;
  }

  /**
   * The closing chunks: one `usage` chunk. Throws a {@link ModelError} when the stream ended without a
   * finish reason (the connection was cut between two events), and when Gemini produced nothing because
   * it blocked the prompt or the response or ran out of output tokens (`invalid_request`; `permission` for
   * a limited account) or garbled a function call (`upstream`, retryable: another attempt usually succeeds).
   */
  finish(): ModelChunk[] {
    if (!this.sawContent) {
      if (this.blockReason)
        throw new ModelError('invalid_request', `Gemini blocked the prompt (${this.blockReason}).`, {
          retryable: false,
        });
      if (this.finishReason && malformedCall.has(this.finishReason))
        throw new ModelError('upstream', `Gemini produced an invalid function call (${this.finishReason}).`, {
          retryable: true,
        });
      if (this.finishReason && blocked.has(this.finishReason))
        throw new ModelError('invalid_request', `Gemini returned no content (${this.finishReason}).`, {
          retryable: false,
        });
      // Thinking can spend the whole output budget: a retry would too.
      if (this.finishReason === 'MAX_TOKENS')
        throw new ModelError(
          'invalid_request',
          'Gemini reached the output token limit before producing any content; raise config.maxOutputTokens (or lower the thinking budget).',
          { retryable: false },
        );
      if (this.finishReason === 'PUP_LIMITED_DISABLED')
        throw new ModelError(
          'permission',
          'Gemini refused the request: the account is limited (PUP_LIMITED_DISABLED).',
          {
            retryable: false,
          },
        );
    }
    if (this.finishReason === undefined && !this.blockReason) {
      if (!this.sawCandidate)
        throw new ModelError('upstream', 'Gemini answered with no candidate and no block reason.', {
          retryable: true,
        });
      throw new ModelError('connection', 'The Gemini stream ended before the response was finished.');
    }
    return [{ type: 'usage', usage: usageFromMetadata(this.usage) }];
  }
}
