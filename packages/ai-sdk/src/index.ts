export type { AgentkitMessageMetadata } from './message-metadata';
export { replyInputFromUIMessages } from './reply-input-from-ui-messages';
export {
  toUIMessageStream,
  toUIMessageStreamResponse,
  type ToUIMessageStreamOptions,
  type ToUIMessageStreamResponseOptions,
} from './to-ui-message-stream';
export { UIMessageMapper, type RunOutcome, type UIMessageMapperOptions } from './ui-message-mapper';
