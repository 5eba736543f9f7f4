import { ConfigError, type JSONSchema } from '@agentkit/core';
import { DEFAULT_COMPRESSION_PROMPT, DEFAULT_SUMMARY_SCHEMA, DEFAULT_SUMMARY_TEMPLATE } from './defaults';
import { templateFields } from './render-summary';

/**
 * How the context is managed. Every field is optional; see {@link DEFAULT_CONTEXT_CONFIG} for the defaults.
 * Ratios are fractions of the model's context size (`model.contextSize`).
 */
export interface ContextConfig {
  /** Compress when the model input reaches `triggerRatio × contextSize` tokens. `0 < x ≤ 0.9`, default 0.8. */
  triggerRatio?: number | undefined;
  /** Keep the newest `reserveRatio × contextSize` tokens word for word. `0 < x < 0.9` and `< triggerRatio`, default 0.1. */
  reserveRatio?: number | undefined;
  /** The instruction sent as the last message of the summary call. `{current_time}` is replaced with the ISO time. */
  compressionPrompt?: string | undefined;
  /** Turns the summary fields into the summary text: `{field}` placeholders, `{{`/`}}` for literal braces. */
  summaryTemplate?: string | undefined;
  /** JSON Schema (an object schema) of the fields the model produces for the summary. */
  summarySchema?: JSONSchema | undefined;
  /** Tool results above this many tokens are cut and the rest offloaded. Positive integer, default 50000. */
  toolResultLimit?: number | undefined;
  /** At most this many images stay in the context; older ones are offloaded or removed. Integer ≥ 0, default 5. */
  maxImageNum?: number | undefined;
  /**
   * The `CompressContext` tool compresses from `(triggerRatio − contextBufferRatio) × contextSize` tokens, and
   * `@agentkit/injection` warns from there. `0 ≤ x ≤ 1`, and `< triggerRatio` when set or when the tool is
   * enabled (`@agentkit/injection` checks it too); default 0.2.
   */
  contextBufferRatio?: number | undefined;
  /** Give the agent the `CompressContext` tool. Default `false`. */
  compressionToolEnabled?: boolean | undefined;
  /**
   * When the summary call fails: `true` (default) keeps the previous summary (or a truncation note) and still
   * drops the old messages; `false` throws and leaves the state untouched.
   */
  compressionFallbackToTruncation?: boolean | undefined;
}

/** A {@link ContextConfig} with every field set. */
export type ResolvedContextConfig = Required<ContextConfig>;

/** The defaults of every option. */
export const DEFAULT_CONTEXT_CONFIG: Readonly<ResolvedContextConfig> = Object.freeze({
  triggerRatio: 0.8,
  reserveRatio: 0.1,
  compressionPrompt: DEFAULT_COMPRESSION_PROMPT,
  summaryTemplate: DEFAULT_SUMMARY_TEMPLATE,
  summarySchema: DEFAULT_SUMMARY_SCHEMA,
  toolResultLimit: 50_000,
  maxImageNum: 5,
  contextBufferRatio: 0.2,
  compressionToolEnabled: false,
  compressionFallbackToTruncation: true,
});

const KEYS = Object.keys(DEFAULT_CONTEXT_CONFIG) as Array<keyof ResolvedContextConfig>;

const fail = (field: string, message: string): never => {
  throw new ConfigError(`@agentkit/context: '${field}' ${message}`, { field });
};

const isRatio = (x: unknown): x is number => typeof x === 'number' && Number.isFinite(x);

/**
 * Merges `config` over `base` (default: {@link DEFAULT_CONTEXT_CONFIG}) and validates the result. Throws
 * {@link ConfigError} naming the offending field: ratios out of range, `reserveRatio ≥ triggerRatio`,
 * `contextBufferRatio ≥ triggerRatio` (when `config` sets the buffer or enables the `CompressContext` tool,
 * the only things here that use it), a template placeholder the schema does not define, and so on.
 */
export function resolveContextConfig(
  config: ContextConfig | undefined,
  base: Readonly<ResolvedContextConfig> = DEFAULT_CONTEXT_CONFIG,
): ResolvedContextConfig {
  if (config !== undefined && (typeof config !== 'object' || config === null || Array.isArray(config)))
    fail('config', 'must be an object.');
  // Nothing to merge: the base is resolved (and validated) already, and never edited.
  if (config === undefined || isEmpty(config)) return base as ResolvedContextConfig;
  const out = { ...base } as ResolvedContextConfig;
  for (const key of KEYS) {
    const value = config?.[key];
    if (value !== undefined) (out as Record<string, unknown>)[key] = value;
  }
  // The buffer only matters to the CompressContext tool (and to @agentkit/injection, which checks it itself):
  // a low triggerRatio with the default buffer is valid unless the buffer is set or the tool is on.
  validate(out, config?.contextBufferRatio !== undefined || config?.compressionToolEnabled === true);
  // A caller's schema is copied (they may edit theirs later); the default and a base's copy are ours, and
  // shared: a plugin per session does not copy the schema each time.
  if (config?.summarySchema !== undefined) out.summarySchema = structuredClone(out.summarySchema);
  return out;
}

function validate(c: ResolvedContextConfig, checkBuffer: boolean): void {
  if (!isRatio(c.triggerRatio) || c.triggerRatio <= 0 || c.triggerRatio > 0.9)
    fail('triggerRatio', `must be a number with 0 < triggerRatio ≤ 0.9 (got ${String(c.triggerRatio)}).`);
  if (!isRatio(c.reserveRatio) || c.reserveRatio <= 0 || c.reserveRatio >= 0.9)
    fail('reserveRatio', `must be a number with 0 < reserveRatio < 0.9 (got ${String(c.reserveRatio)}).`);
  if (c.reserveRatio >= c.triggerRatio)
    fail('reserveRatio', `(${c.reserveRatio}) must be smaller than triggerRatio (${c.triggerRatio}).`);
  if (!isRatio(c.contextBufferRatio) || c.contextBufferRatio < 0 || c.contextBufferRatio > 1)
    fail(
      'contextBufferRatio',
      `must be a number with 0 ≤ contextBufferRatio ≤ 1 (got ${String(c.contextBufferRatio)}).`,
    );
  if (checkBuffer && c.contextBufferRatio >= c.triggerRatio)
    fail(
      'contextBufferRatio',
      `(${c.contextBufferRatio}) must be smaller than triggerRatio (${c.triggerRatio}).`,
    );
  if (!Number.isInteger(c.toolResultLimit) || c.toolResultLimit <= 0)
    fail('toolResultLimit', `must be a positive integer (got ${String(c.toolResultLimit)}).`);
  if (!Number.isInteger(c.maxImageNum) || c.maxImageNum < 0)
    fail('maxImageNum', `must be an integer ≥ 0 (got ${String(c.maxImageNum)}).`);
  if (typeof c.compressionPrompt !== 'string' || c.compressionPrompt.trim() === '')
    fail('compressionPrompt', 'must be a non-empty string.');
  if (typeof c.summaryTemplate !== 'string') fail('summaryTemplate', 'must be a string.');
  for (const key of ['compressionToolEnabled', 'compressionFallbackToTruncation'] as const)
    if (typeof c[key] !== 'boolean') fail(key, `must be a boolean (got ${String(c[key])}).`);
  const schema = c.summarySchema;
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema) || schema.type !== 'object')
    fail('summarySchema', "must be a JSON Schema object with type 'object'.");
  const props = schema.properties;
  if (typeof props !== 'object' || props === null || Array.isArray(props))
    fail('summarySchema', "must declare 'properties'.");
  for (const field of templateFields(c.summaryTemplate))
    if (!Object.hasOwn(props as object, field))
      fail('summaryTemplate', `refers to '{${field}}', which summarySchema.properties does not define.`);
}

function isEmpty(config: ContextConfig): boolean {
  for (const key in config) if ((config as Record<string, unknown>)[key] !== undefined) return false;
  return true;
}
