import { AgentkitError } from './agentkit-error';

/** An agent state could not be loaded: corrupt JSON, wrong shape, or an unsupported schema version. */
export class StateError extends AgentkitError {
  constructor(message: string, options?: { cause?: unknown | undefined }) {
    super('STATE', message, options);
  }
}
