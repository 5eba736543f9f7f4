import type { ErrorType } from './error-type';
import { AgentkitError } from './agentkit-error';

/**
 * A model call failed. Adapters classify provider failures into an {@link ErrorType}; the loop retries
 * the retryable ones and otherwise ends the reply with that type.
 */
export class ModelError extends AgentkitError {
  /** The classified type, copied into the reply's `ErrorInfo`. */
  readonly errorType: ErrorType;
  /** HTTP status, when there was a response. */
  readonly status: number | undefined;
  /** Whether another attempt may succeed (rate limits, 5xx, connection problems). */
  readonly retryable: boolean;
  /** Delay the provider asked for before the next attempt (`retry-after`). */
  readonly retryAfterMs: number | undefined;

  constructor(
    errorType: ErrorType,
    message: string,
    options?: {
      status?: number | undefined;
      retryable?: boolean | undefined;
      retryAfterMs?: number | undefined;
      cause?: unknown | undefined;
    },
  ) {
    super('MODEL', message, options);
    this.errorType = errorType;
    this.status = options?.status;
    this.retryable =
      options?.retryable ??
      (errorType === 'rate_limit' || errorType === 'upstream' || errorType === 'connection');
    this.retryAfterMs = options?.retryAfterMs;
  }
}
