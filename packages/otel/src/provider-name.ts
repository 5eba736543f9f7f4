import type { ChatModel } from '@agentkit/core';

// Model-name prefixes of the providers with a well-known `gen_ai.provider.name` value. An OpenAI-compatible
// server hosting one of these families is reported as the family's provider: the conventions ask for the
// instrumentation's best knowledge, and `gen_ai.request.model` still names the model.
const FAMILIES: ReadonlyArray<[RegExp, string]> = [
  [/^(gpt-|chatgpt-|o[1-9](-|$)|davinci|babbage|text-embedding-)/, 'openai'],
  [/^(models\/)?(gemini|gemma)-/, 'gcp.gen_ai'],
  [/^claude-/, 'anthropic'],
  [/^(mistral|mixtral|codestral|magistral|ministral|pixtral|devstral)/, 'mistral_ai'],
  [/^deepseek-/, 'deepseek'],
  [/^grok-/, 'x_ai'],
  [/^command(-|$)/, 'cohere'],
  [/^sonar(-|$)/, 'perplexity'],
];

/**
 * The `gen_ai.provider.name` of a model: its own `provider` property when it has one (an adapter that
 * knows its provider), else guessed from well-known model-name prefixes, else `'unknown'`.
 * @example providerName({ name: 'gpt-5-mini', contextSize: 400_000, stream }) // 'openai'
 */
export function providerName(model: ChatModel): string {
  const own = (model as { provider?: unknown }).provider;
  if (typeof own === 'string' && own !== '') return own;
  const name = model.name.toLowerCase();
  for (const [pattern, provider] of FAMILIES) if (pattern.test(name)) return provider;
  return 'unknown';
}
