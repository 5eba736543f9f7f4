/** Token usage of one model call or, summed, of a whole reply. */
export interface Usage {
  /** Input (prompt) tokens, including cached ones. */
  inputTokens: number;
  /** Output (completion) tokens, including reasoning tokens. */
  outputTokens: number;
  /** Input tokens served from the provider's prompt cache. */
  cacheInputTokens: number;
  /** Input tokens written to the provider's prompt cache. */
  cacheCreationInputTokens: number;
  /** Output tokens spent on reasoning, when the provider reports them. */
  reasoningTokens: number;
}

/** A usage record with every counter at zero. */
export function emptyUsage(): Usage {
  return {
    inputTokens: 0,
    outputTokens: 0,
    cacheInputTokens: 0,
    cacheCreationInputTokens: 0,
    reasoningTokens: 0,
  };
}

/**
 * Normalises a usage record as a provider (or an adapter) reported it: each counter that is not a finite
 * number ≥ 0 (missing, `null`, negative, `NaN`, a string) becomes 0, and one past 2^53 − 1 is capped, so
 * sums over a long session stay finite and the state that keeps them always loads again.
 * @example normalizeUsage({ inputTokens: 10 }) // { inputTokens: 10, outputTokens: 0, … }
 */
export function normalizeUsage(
  usage: Partial<Record<keyof Usage, number | null | undefined>> | null | undefined,
): Usage {
  const u = (usage ?? {}) as Record<string, unknown>;
  const n = (v: unknown) => (typeof v === 'number' && v > 0 ? Math.min(v, Number.MAX_SAFE_INTEGER) : 0);
  return {
    inputTokens: n(u.inputTokens),
    outputTokens: n(u.outputTokens),
    cacheInputTokens: n(u.cacheInputTokens),
    cacheCreationInputTokens: n(u.cacheCreationInputTokens),
    reasoningTokens: n(u.reasoningTokens),
  };
}

/** Adds `b` onto `a` in place and returns `a`. */
export function addUsage(a: Usage, b: Usage): Usage {
  a.inputTokens += b.inputTokens;
  a.outputTokens += b.outputTokens;
  a.cacheInputTokens += b.cacheInputTokens;
  a.cacheCreationInputTokens += b.cacheCreationInputTokens;
  a.reasoningTokens += b.reasoningTokens;
  return a;
}
