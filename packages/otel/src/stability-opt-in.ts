/** The `OTEL_SEMCONV_STABILITY_OPT_IN` value that asks GenAI instrumentations for the latest conventions. */
export const GEN_AI_LATEST_EXPERIMENTAL = 'gen_ai_latest_experimental';

/**
 * Whether `OTEL_SEMCONV_STABILITY_OPT_IN` (a comma-separated list, as the conventions define it) holds
 * `gen_ai_latest_experimental`.
 * @example latestExperimentalRequested('http,gen_ai_latest_experimental') // true
 */
export function latestExperimentalRequested(value: string | undefined): boolean {
  if (!value) return false;
  return value.split(',').some((item) => item.trim() === GEN_AI_LATEST_EXPERIMENTAL);
}
