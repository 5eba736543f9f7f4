export { injection, INJECTION_PLUGIN_NAME } from './injection-plugin';
export {
  resolveInjectionConfig,
  type InjectionConfig,
  type InjectionSourceLabel,
  type ResolvedInjectionConfig,
} from './injection-config';
export {
  collectRuntimeState,
  renderRuntimeState,
  type ContextUsage,
  type RuntimeStateField,
  type RuntimeStateInput,
} from './runtime-state';
export { scanContext, hintText, type ContextScan } from './scan-context';
export { createContextScanner, type ContextScanner, type ContextScanOptions } from './context-scanner';
export { findRepeatedToolError, normalizeToolArguments, type RepeatedToolError } from './repeated-tool-error';
export { readRecordedTime } from './recorded-time';
export {
  checkTimeFormat,
  formatTime,
  parseTime,
  type ParsedTime,
  type WallTime,
  type ZonedWallTime,
} from './time-format';
export { instantOfWallTime, isValidTimeZone, wallTimeAsUtc, wallTimeIn } from './time-zone';
export { CONTEXT_BUFFER_RATIO_DEPRECATION_CODE } from './deprecation';
export {
  CONTEXT_COMPRESSION_TEXT,
  DEFAULT_INJECTION_SOURCE,
  DEFAULT_TASK_TOOL_NAMES,
  DEFAULT_TEMPLATE,
  DEFAULT_TOOL_RETRIES_HINT,
  contextLengthText,
  tasksText,
} from './texts';
