import { type ChatModel, ConfigError } from '@agentkit/core';
import type { MeterProvider, TracerProvider } from '@opentelemetry/api';

/** Options of {@link otel}. All are optional. */
export interface OtelOptions {
  /**
   * Where spans go. Default: the global tracer provider (`trace.setGlobalTracerProvider`, or what
   * `NodeSDK.start()` registers), also when it is registered after the plugin was made.
   */
  tracerProvider?: TracerProvider;
  /** Where metrics go. Default: the global meter provider, looked up at the start of each reply. */
  meterProvider?: MeterProvider;
  /**
   * `gen_ai.provider.name`, or a function of the agent's model giving it. Default: the model's own
   * `provider` property when it has one, else guessed from the model name (`gpt-…` → `openai`,
   * `gemini-…` → `gcp.gen_ai`, `claude-…` → `anthropic`…), else `unknown`.
   */
  provider?: string | ((model: ChatModel) => string);
  /**
   * Record message content on spans: system instructions, input and output messages, tool definitions,
   * tool-call arguments and results. Off by default: content is often sensitive (personal data, secrets).
   */
  captureContent?: boolean;
  /**
   * Emit only the latest experimental GenAI conventions this package supports, without the deprecated
   * `gen_ai.system` attribute. Default: whether the `OTEL_SEMCONV_STABILITY_OPT_IN` environment variable
   * lists `gen_ai_latest_experimental`.
   */
  latestExperimental?: boolean;
  /**
   * How the spans of a reply resumed after a pause relate to the paused run's: `link` (default: the
   * resumed run joins the trace active where it resumes, with a span link to the paused run) or
   * `parent` (the resumed run is a child of the paused run's span, in the same trace).
   */
  resume?: 'link' | 'parent';
}

const OPTION_KEYS: ReadonlySet<string> = new Set([
  'tracerProvider',
  'meterProvider',
  'provider',
  'captureContent',
  'latestExperimental',
  'resume',
]);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Checks {@link OtelOptions}. @throws {ConfigError} naming the offending option. */
export function checkOtelOptions(options: unknown): asserts options is OtelOptions {
  const bad = (field: string, message: string): never => {
    throw new ConfigError(`otel: ${message}`, { field: `otel.${field}` });
  };
  if (!isObject(options)) bad('options', `options must be an object, got ${JSON.stringify(options)}.`);
  const o = options as Record<string, unknown>;
  for (const key of Object.keys(o))
    if (!OPTION_KEYS.has(key)) bad(key, `unknown option '${key}' (known: ${[...OPTION_KEYS].join(', ')}).`);
  if (
    o.tracerProvider !== undefined &&
    typeof (o.tracerProvider as { getTracer?: unknown })?.getTracer !== 'function'
  )
    bad('tracerProvider', 'tracerProvider must be a TracerProvider (an object with getTracer).');
  if (
    o.meterProvider !== undefined &&
    typeof (o.meterProvider as { getMeter?: unknown })?.getMeter !== 'function'
  )
    bad('meterProvider', 'meterProvider must be a MeterProvider (an object with getMeter).');
  if (
    o.provider !== undefined &&
    typeof o.provider !== 'function' &&
    (typeof o.provider !== 'string' || o.provider === '')
  )
    bad('provider', 'provider must be a non-empty string or a function of the model.');
  for (const key of ['captureContent', 'latestExperimental'])
    if (o[key] !== undefined && typeof o[key] !== 'boolean') bad(key, `${key} must be a boolean.`);
  if (o.resume !== undefined && o.resume !== 'link' && o.resume !== 'parent')
    bad('resume', `resume must be 'link' or 'parent', got ${JSON.stringify(o.resume)}.`);
}
