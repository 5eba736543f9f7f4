import { AgentkitError } from './agentkit-error';

/**
 * A reply ran past its `timeoutMs` (a reply option): the reply's signal is aborted with this error, so
 * hooks, tools and the model call stop, and the reply ends `error` with an `ErrorInfo` of type
 * `connection` carrying this message.
 */
export class ReplyTimeoutError extends AgentkitError {
  /** The time limit the reply had. */
  readonly timeoutMs: number;

  constructor(timeoutMs: number) {
    super('REPLY_TIMEOUT', `The reply did not finish within its time limit of ${timeoutMs} ms.`);
    this.timeoutMs = timeoutMs;
  }
}
