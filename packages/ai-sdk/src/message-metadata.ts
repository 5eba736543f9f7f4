import type { ErrorInfo, ReplyFinishedReason, Usage } from '@agentkit/core';

/**
 * The metadata of an assistant UI message built from an agentkit reply (`message.metadata`): the usage
 * summed over the reply's model calls (updated after each call), and once the run ends how the reply
 * finished. Use it as the `METADATA` type of `UIMessage`.
 * @example
 * type ChatMessage = UIMessage<AgentkitMessageMetadata>;
 */
export interface AgentkitMessageMetadata {
  /** Tokens used by the reply so far. */
  usage?: Usage | null;
  /** How the reply ended; `null` while it is paused (tool approvals, client-side tools) or unfinished. */
  finishedReason?: ReplyFinishedReason | null;
  /** Why the reply failed (`finishedReason: 'error'`). */
  error?: ErrorInfo;
  /** The structured result, for a reply asked for one (structured-output plugin). */
  structuredOutput?: unknown;
}
