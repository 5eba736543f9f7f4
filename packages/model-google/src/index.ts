export { createGoogleModel, GoogleModel, type GoogleModelOptions } from './google-model';
export { DEFAULT_GEMINI_CONTEXT_SIZE, GEMINI_CONTEXT_SIZES, geminiContextSize } from './context-sizes';
export { GeminiStreamReader, usageFromMetadata } from './gemini-stream-reader';
export { GeminiTokenCounter, estimateTokens } from './gemini-token-counter';
export { stableToolCallId } from './stable-tool-call-id';
export {
  SKIP_THOUGHT_SIGNATURE,
  SYNTHETIC_ID_KEY,
  THOUGHT_SIGNATURE_KEY,
  toGeminiContents,
  type ToGeminiContentsOptions,
} from './to-gemini-contents';
export { toGeminiToolConfig, toGeminiTools } from './to-gemini-tools';
export { toModelError, type ToModelErrorContext } from './to-model-error';
