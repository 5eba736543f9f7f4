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
  | 'REPLY_TIMEOUT'
  | (string & {});

/**
 * Base class of every error agentkit throws. Each class's `isInstance` works across several installed
 * copies of `@agentkit/core` (pick-and-mix installs can end up with two), where `instanceof` would not:
 * an error carries the names of its class chain, and `VersionConflictError.isInstance(error)` looks for
 * `'VersionConflictError'` there.
 */
export class AgentkitError extends Error {
  /** The names of this error's classes, the most derived first (what `isInstance` reads). */
  readonly [marker]: readonly string[];
  /** A stable code for programmatic handling. */
  readonly code: AgentkitErrorCode;

  constructor(code: AgentkitErrorCode, message: string, options?: { cause?: unknown | undefined }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
    const names: string[] = [];
    for (let c: unknown = new.target; typeof c === 'function' && c !== Error; c = Object.getPrototypeOf(c))
      names.push(c.name);
    this[marker] = names;
  }

  /**
   * True when `error` is an instance of this class (or a subclass) from any copy of core:
   * `AgentkitError.isInstance(e)` for every agentkit error, `ConfigError.isInstance(e)` for config errors.
   */
  static isInstance<T extends AgentkitError>(
    this: abstract new (
      ...args: any[]
    ) => T,
    error: unknown,
  ): error is T {
    if (typeof error !== 'object' || error === null) return false;
    const names = (error as Record<symbol, unknown>)[marker];
    // biome-ignore lint/complexity/noThisInStatic: `this` is the class isInstance was called on.
    return Array.isArray(names) && names.includes(this.name);
  }
}
