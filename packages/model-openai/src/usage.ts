import type { Usage } from '@agentkit/core';
import { normalizeUsage } from '@agentkit/core/model';
import type { CompletionUsage } from 'openai/resources/completions';
import type { ResponseUsage } from 'openai/resources/responses/responses';

/**
 * Maps Chat Completions usage: cached input from `prompt_tokens_details.cached_tokens` (or DeepSeek's
 * `prompt_cache_hit_tokens`, whichever is larger), reasoning from `completion_tokens_details.reasoning_tokens`.
 */
export function chatUsage(usage: CompletionUsage): Usage {
  const extra = usage as CompletionUsage & { prompt_cache_hit_tokens?: number | undefined };
  return normalizeUsage({
    inputTokens: usage.prompt_tokens,
    outputTokens: usage.completion_tokens,
    cacheInputTokens: Math.max(
      usage.prompt_tokens_details?.cached_tokens ?? 0,
      extra.prompt_cache_hit_tokens ?? 0,
    ),
    reasoningTokens: usage.completion_tokens_details?.reasoning_tokens,
  });
}

/** Maps Responses usage (`input_tokens_details.cached_tokens`, `output_tokens_details.reasoning_tokens`). */
export function responsesUsage(usage: ResponseUsage): Usage {
  return normalizeUsage({
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    cacheInputTokens: usage.input_tokens_details?.cached_tokens,
    reasoningTokens: usage.output_tokens_details?.reasoning_tokens,
  });
}
