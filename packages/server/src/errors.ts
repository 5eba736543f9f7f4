import { AgentkitError } from '@agentkit/core';

/** The server is shutting down and takes no new replies (HTTP 503). */
export class ServerDrainingError extends AgentkitError {
  constructor() {
    super(
      'SERVER_DRAINING',
      'The server is shutting down and takes no new replies; retry on another instance.',
    );
  }
}

/** A user has as many replies running as the server allows (HTTP 429). */
export class TooManyRepliesError extends AgentkitError {
  /** Seconds after which a retry may succeed. */
  readonly retryAfterSeconds: number;
  constructor(limit: number, retryAfterSeconds = 1) {
    super('TOO_MANY_REPLIES', `At most ${limit} replies may run at once per user; wait for one to end.`);
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
