// The public surface: the factory, the model class and its options, context sizes, the keys it keeps in
// `providerData`, and the SDK-error mapping. Request conversion and stream reading are internal.
export { createGoogleModel, GoogleModel, type GoogleModelOptions } from './google-model';
export { DEFAULT_GEMINI_CONTEXT_SIZE, GEMINI_CONTEXT_SIZES, geminiContextSize } from './context-sizes';
export { SKIP_THOUGHT_SIGNATURE, SYNTHETIC_ID_KEY, THOUGHT_SIGNATURE_KEY } from './to-gemini-contents';
export { toModelError } from './to-model-error';
