import { AgentkitError } from './agentkit-error';

/** A message breaks the role rules (e.g. a user message holding a tool call). */
export class MessageValidationError extends AgentkitError {
  constructor(message: string) {
    super('INVALID_MESSAGE', message);
  }
}

/** The input of `reply`/`observe` is not acceptable (wrong role, forbidden blocks, bad shape). */
export class InvalidInputError extends AgentkitError {
  constructor(message: string) {
    super('INVALID_INPUT', message);
  }
}

/**
 * New input arrived while a reply is paused waiting for confirmation or external results. Resume the
 * paused reply (confirm results, external results) or interrupt it first.
 */
export class ReplyPausedError extends AgentkitError {
  /** Ids of the tool calls the paused reply waits for. */
  readonly awaitingToolCallIds: string[];

  constructor(awaitingToolCallIds: string[]) {
    super(
      'REPLY_PAUSED',
      `The agent is paused waiting for tool calls ${awaitingToolCallIds.map((id) => `'${id}'`).join(', ')}; ` +
        'resume it with a confirm or external-execution result, or send a user interrupt.',
    );
    this.awaitingToolCallIds = awaitingToolCallIds;
  }
}

/** A resume event does not match what the paused reply waits for. */
export class ResumeMismatchError extends AgentkitError {
  constructor(message: string) {
    super('RESUME_MISMATCH', message);
  }
}
