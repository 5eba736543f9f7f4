export {
  COMPRESS_CONTEXT_DESCRIPTION,
  COMPRESS_CONTEXT_TEXTS,
  COMPRESS_CONTEXT_TOOL_NAME,
  createCompressContextTool,
} from './compress-context-tool';
export { compressContext } from './compress-context';
export {
  type ContextConfig,
  DEFAULT_CONTEXT_CONFIG,
  type ResolvedContextConfig,
  resolveContextConfig,
} from './context-config';
export {
  CONTEXT_PLUGIN_NAME,
  type CompressContextOptions,
  type CompressibleAgent,
  type ContextPlugin,
  type ContextPluginOptions,
  contextPlugin,
} from './context-plugin';
export {
  DEFAULT_COMPRESSION_PROMPT,
  DEFAULT_SUMMARY_SCHEMA,
  DEFAULT_SUMMARY_TEMPLATE,
  offloadReminder,
  SUMMARY_TOOL_NAME,
  TRUNCATION_SUMMARY,
} from './defaults';
export {
  ContextBusyError,
  ContextCompressionError,
  ContextThresholdError,
  OffloadPathError,
} from './errors';
export { extensionFor, FileOffloader, type FileOffloaderOptions } from './file-offloader';
export { imageNote, type LimitImagesOptions, limitContextImages } from './limit-images';
export { isOffloader, type Offloader } from './offloader';
export { MissingSummaryFieldError, renderSummary, templateFields } from './render-summary';
export {
  requestSummary,
  type SummaryRequest,
  type SummaryResponse,
  summaryMessages,
  summaryTool,
} from './request-summary';
export {
  type CompressionOptions,
  type CompressionOutcome,
  type CompressionTarget,
  type ContextReplacement,
  runCompression,
  summaryMessage,
} from './run-compression';
export { type ContextSplit, type SplitContextOptions, splitContext } from './split-context';
export {
  splitToolResult,
  type ToolResultSplit,
  truncationNote,
  withTruncationNote,
} from './split-tool-result';
