import { AgentkitError } from '@agentkit/core';

/**
 * The system prompt (with the summary and tool schemas) alone reaches the compression threshold, so there is
 * nothing left to compress. Shorten the system prompt or use a model with a larger context.
 */
export class ContextThresholdError extends AgentkitError {
  /** The threshold in tokens. */
  readonly threshold: number;
  /** The tokens of the model input. */
  readonly tokens: number;

  constructor(options: { threshold: number; tokens: number; hasSummary: boolean }) {
    super(
      'CONTEXT_THRESHOLD',
      `The system prompt${options.hasSummary ? ' and the compression summary' : ''} exceed${options.hasSummary ? '' : 's'} ` +
        `the compression threshold (${options.threshold} tokens, input ${options.tokens} tokens), cannot be compressed.`,
    );
    this.threshold = options.threshold;
    this.tokens = options.tokens;
  }
}

/**
 * The summary call failed and the truncation fallback is off (`compressionFallbackToTruncation: false`).
 * The state was left as it was. `cause` holds the model's error.
 */
export class ContextCompressionError extends AgentkitError {
  constructor(message: string, options?: { cause?: unknown | undefined }) {
    super('CONTEXT_COMPRESSION', message, options);
  }
}

/**
 * A manual compression was asked for while the agent is running a reply, or a reply was running (or had
 * changed the messages the compression read) when the summary arrived. Nothing was changed; compress between
 * replies (or while a reply is paused). During a reply, compression happens automatically before each model
 * call.
 */
export class ContextBusyError extends AgentkitError {
  constructor(agentName: string, options?: { changed?: boolean | undefined }) {
    super(
      'CONTEXT_BUSY',
      options?.changed
        ? `Agent '${agentName}' was replying when the compression summary arrived; the compression was dropped and nothing was changed. Compress again between replies.`
        : `Agent '${agentName}' is running a reply; compress its context between replies (or while the reply is paused).`,
    );
  }
}

/**
 * The offloader refused a path: a folder below its directory, or the context file, is a symbolic link (or
 * not what it should be), so writing there could land outside the offload directory.
 */
export class OffloadPathError extends AgentkitError {
  constructor(message: string, options?: { cause?: unknown | undefined }) {
    super('OFFLOAD_PATH', message, options);
  }
}
