/**
 * Ids become file and directory names with core's {@link fileSegment}: one escaping scheme for every
 * agentkit package that writes ids to disk (this store, `@agentkit/context`'s offloader).
 */
export { fileSegment } from '@agentkit/core/store';

/** The suffix of session files. Temp files (`….tmp`) and lock files (`….lock`) never end with it. */
export const RECORD_SUFFIX = '.json';
