import { ConfigError, type Usage } from '@agentkit/core';

/** Options of {@link tokenBudget}. */
export interface TokenBudgetOptions {
  /** Tokens the agent may spend over all its replies (kept in its state, so across processes too). */
  limit: number;
  /** Share of the limit at which the model is told to wrap up (once per reply). Default `0.8`. */
  warnAt?: number;
  /** Which tokens of a usage record count. Default: input + output tokens. */
  count?: (usage: Usage) => number;
}

/** {@link TokenBudgetOptions} with defaults applied. */
export type ResolvedTokenBudgetOptions = Required<TokenBudgetOptions>;

/** Applies defaults and validates; throws `ConfigError` naming the option. */
export function resolveTokenBudgetOptions(options: TokenBudgetOptions): ResolvedTokenBudgetOptions {
  const {
    limit,
    warnAt = 0.8,
    count = (u: Usage) => u.inputTokens + u.outputTokens,
  } = options ?? ({} as TokenBudgetOptions);
  if (typeof limit !== 'number' || !Number.isFinite(limit) || limit <= 0)
    throw new ConfigError('tokenBudget: `limit` must be a number of tokens > 0.', {
      field: 'tokenBudget.limit',
    });
  if (typeof warnAt !== 'number' || !(warnAt > 0 && warnAt <= 1))
    throw new ConfigError('tokenBudget: `warnAt` must be a share of the limit in (0, 1].', {
      field: 'tokenBudget.warnAt',
    });
  if (typeof count !== 'function')
    throw new ConfigError('tokenBudget: `count` must be a function.', { field: 'tokenBudget.count' });
  return { limit, warnAt, count };
}
