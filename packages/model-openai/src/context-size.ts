/**
 * Context windows (tokens) of well-known models served over the OpenAI wire format, matched by the
 * longest prefix of the model name (so `gpt-4o-2024-08-06` matches `gpt-4o`). Override with the
 * `contextSize` option for anything else, e.g. a local model with a smaller window.
 */
export const KNOWN_CONTEXT_SIZES: Readonly<Record<string, number>> = {
  'gpt-5': 400_000,
  'gpt-4.1': 1_047_576,
  'gpt-4.5': 128_000,
  'gpt-4o': 128_000,
  'gpt-4-turbo': 128_000,
  'gpt-4': 8_192,
  'gpt-4-32k': 32_768,
  'gpt-3.5-turbo': 16_385,
  'gpt-oss': 131_072,
  o1: 200_000,
  'o1-mini': 128_000,
  o3: 200_000,
  'o3-mini': 200_000,
  'o4-mini': 200_000,
  deepseek: 128_000,
  'qwen-max': 32_768,
  'qwen-plus': 131_072,
  'qwen-turbo': 1_000_000,
  qwen3: 131_072,
  'kimi-k2': 262_144,
  'llama3.1': 131_072,
  'llama3.2': 131_072,
};

/** Used for models not in {@link KNOWN_CONTEXT_SIZES}. */
export const DEFAULT_CONTEXT_SIZE = 128_000;

/**
 * The context window of `model`: the longest matching prefix in {@link KNOWN_CONTEXT_SIZES} (a name
 * like `openai/gpt-4o` or `accounts/x/models/qwen3-8b` is matched on its last path segment), else
 * {@link DEFAULT_CONTEXT_SIZE}.
 */
export function contextSizeFor(model: string): number {
  const name = (model.split('/').pop() ?? model).toLowerCase();
  let best: string | undefined;
  for (const prefix of Object.keys(KNOWN_CONTEXT_SIZES)) {
    if (name.startsWith(prefix) && (best === undefined || prefix.length > best.length)) best = prefix;
  }
  return best === undefined ? DEFAULT_CONTEXT_SIZE : (KNOWN_CONTEXT_SIZES[best] ?? DEFAULT_CONTEXT_SIZE);
}

/** Whether `model` is one of OpenAI's reasoning models (o-series, gpt-5), which return encrypted reasoning. */
export function isOpenAIReasoningModel(model: string): boolean {
  const name = (model.split('/').pop() ?? model).toLowerCase();
  return /^(o\d|gpt-5)/.test(name);
}
