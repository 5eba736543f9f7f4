// The public surface: the plugin factory, its options and defaults, manual compression, offloading (the
// `Offloader` contract and `FileOffloader`), the tool's name and the errors. Splitting, summarising,
// truncating and file naming are internal.
export { COMPRESS_CONTEXT_TOOL_NAME } from './compress-context-tool';
export { compressContext } from './compress-context';
export { type ContextConfig, DEFAULT_CONTEXT_CONFIG, type ResolvedContextConfig } from './context-config';
export {
  CONTEXT_PLUGIN_NAME,
  type CompressContextOptions,
  type CompressibleAgent,
  type ContextPlugin,
  type ContextPluginOptions,
  contextPlugin,
} from './context-plugin';
export { DEFAULT_COMPRESSION_PROMPT, DEFAULT_SUMMARY_SCHEMA, DEFAULT_SUMMARY_TEMPLATE } from './defaults';
export {
  ContextBusyError,
  ContextCompressionError,
  ContextThresholdError,
  OffloadPathError,
} from './errors';
export { FileOffloader, type FileOffloaderOptions } from './file-offloader';
export type { Offloader } from './offloader';
export { MissingSummaryFieldError } from './render-summary';
export type { CompressionOutcome } from './run-compression';
