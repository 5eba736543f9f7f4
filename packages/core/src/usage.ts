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
 * Normalises a partial usage record (missing or `null` counters become 0).
 * @example normalizeUsage({ inputTokens: 10 }) // { inputTokens: 10, outputTokens: 0, … }
 */
export function normalizeUsage(usage: Partial<Record<keyof Usage, number | null | undefined>>): Usage {
  return {
    inputTokens: usage.inputTokens ?? 0,
    outputTokens: usage.outputTokens ?? 0,
    cacheInputTokens: usage.cacheInputTokens ?? 0,
    cacheCreationInputTokens: usage.cacheCreationInputTokens ?? 0,
    reasoningTokens: usage.reasoningTokens ?? 0,
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
