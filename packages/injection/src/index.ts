// The public surface: the factory, its options (and their defaults), the deprecation code it warns with.
// Everything else (time formats and zones, context scans, runtime-state rendering) is internal.
export { injection, INJECTION_PLUGIN_NAME } from './injection-plugin';
export type { InjectionConfig, InjectionSourceLabel } from './injection-config';
export { CONTEXT_BUFFER_RATIO_DEPRECATION_CODE } from './deprecation';
export {
  DEFAULT_INJECTION_SOURCE,
  DEFAULT_TASK_TOOL_NAMES,
  DEFAULT_TEMPLATE,
  DEFAULT_TOOL_RETRIES_HINT,
} from './texts';
