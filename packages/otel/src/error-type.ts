import type { ErrorInfo } from '@agentkit/core';
import { ERROR_TYPE_OTHER } from './semconv';

/**
 * `error.type` of a failed reply or model call: core's error class (`authentication`, `permission`,
 * `rate_limit`, `invalid_request`, `upstream`, `connection`, `internal`, `setup`), or `_OTHER`.
 */
export function errorType(error: ErrorInfo | null | undefined): string {
  if (!error || error.type === 'unknown') return ERROR_TYPE_OTHER;
  return error.type;
}
