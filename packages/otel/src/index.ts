export { otel, OTEL_PLUGIN_NAME } from './otel-plugin';
export type { OtelOptions } from './otel-options';
export { providerName } from './provider-name';
export { GENAI_SEMCONV_VERSION } from './semconv';
export { GEN_AI_LATEST_EXPERIMENTAL, latestExperimentalRequested } from './stability-opt-in';
export type { TraceHeaders } from './traceparent';
