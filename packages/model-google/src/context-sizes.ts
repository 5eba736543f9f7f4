/**
 * Context windows (input tokens) of Gemini models, by model-name prefix. The longest matching prefix
 * wins, so `gemini-1.5-pro-002` finds `gemini-1.5-pro`. Override per model with the `contextSize` option
 * of {@link createGoogleModel}.
 */
export const GEMINI_CONTEXT_SIZES: Readonly<Record<string, number>> = {
  'gemini-3': 1_048_576,
  'gemini-2.5': 1_048_576,
  'gemini-2.0-flash': 1_048_576,
  'gemini-2.0-flash-lite': 1_048_576,
  'gemini-1.5-pro': 2_097_152,
  'gemini-1.5-flash': 1_048_576,
  'gemma-3': 131_072,
  'gemma-3n': 32_768,
};

/** The context size assumed for a model the table does not know. */
export const DEFAULT_GEMINI_CONTEXT_SIZE = 1_048_576;

/**
 * The context window of `model`: the entry of {@link GEMINI_CONTEXT_SIZES} with the longest prefix of
 * the name (a leading `models/` or Vertex publisher path is ignored), else
 * {@link DEFAULT_GEMINI_CONTEXT_SIZE}.
 * @example geminiContextSize('gemini-2.5-flash') // 1048576
 */
export function geminiContextSize(model: string): number {
  const name = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  let best: string | undefined;
  for (const prefix of Object.keys(GEMINI_CONTEXT_SIZES)) {
    if (name.startsWith(prefix) && (best === undefined || prefix.length > best.length)) best = prefix;
  }
  return best === undefined ? DEFAULT_GEMINI_CONTEXT_SIZE : GEMINI_CONTEXT_SIZES[best]!;
}
