const marker = Symbol.for('agentkit.error');

/** Stable machine-readable codes of every error agentkit throws. */
export type AgentkitErrorCode =
  | 'CONFIG'
  | 'PLUGIN_HOOK'
  | 'MODEL'
  | 'INVALID_MESSAGE'
  | 'INVALID_INPUT'
  | 'REPLY_PAUSED'
  | 'RESUME_MISMATCH'
  | 'STATE'
  | 'SESSION_NOT_FOUND'
  | 'VERSION_CONFLICT'
  | 'STORE_DATA'
  | 'STORE_CONNECTION'
  | 'SESSION_BUSY'
  | 'LEASE_LOST'
  | (string & {});

/**
 * Base class of every error agentkit throws. `isInstance` works across several installed copies of
 * `@agentkit/core` (pick-and-mix installs can end up with two), where `instanceof` would not.
 */
export class AgentkitError extends Error {
  readonly [marker] = true;
  /** A stable code for programmatic handling. */
  readonly code: AgentkitErrorCode;

  constructor(code: AgentkitErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }

  /** True when `error` is an {@link AgentkitError} from any copy of core. */
  static isInstance(error: unknown): error is AgentkitError {
    return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[marker] === true;
  }
}
