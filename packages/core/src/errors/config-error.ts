import { AgentkitError } from './agentkit-error';

/**
 * Invalid configuration, thrown when an agent or plugin is built, or by a reply given a plugin option no
 * installed plugin reads. The message names the field.
 */
export class ConfigError extends AgentkitError {
  /** The offending field, e.g. `context.triggerRatio`. */
  readonly field: string | undefined;

  constructor(message: string, options?: { field?: string | undefined; cause?: unknown | undefined }) {
    super('CONFIG', message, options);
    this.field = options?.field;
  }
}
