export {
  createOpenAIModel,
  OpenAIModel,
  type OpenAIModelOptions,
  type OpenAIReasoningOptions,
} from './openai-model';
export { contextSizeFor, DEFAULT_CONTEXT_SIZE, KNOWN_CONTEXT_SIZES } from './context-size';
export type { ReasoningReplay } from './chat-request';
export type { OpenAIProviderData } from './provider-data';
export { toModelError } from './to-model-error';
