import { AgentkitError } from '@agentkit/core';

/**
 * The token budget is spent and the reply cannot go on. Thrown from the guard's hooks, so the reply ends
 * with `finishedReason: 'error'` and an `ErrorInfo` whose message says so.
 */
export class TokenBudgetExceededError extends AgentkitError {
  /** Tokens spent so far (finished replies plus the current one). */
  readonly spent: number;
  /** The configured limit. */
  readonly limit: number;

  constructor(spent: number, limit: number, detail: string) {
    super('TOKEN_BUDGET_EXCEEDED', `The token budget is spent (${spent} of ${limit} tokens): ${detail}`);
    this.spent = spent;
    this.limit = limit;
  }
}
