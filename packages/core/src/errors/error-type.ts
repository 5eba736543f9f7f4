/**
 * The kind of failure that ended a reply.
 * `authentication` (401), `permission` (403), `rate_limit` (429), `invalid_request` (400/404/422 and other
 * 4xx), `upstream` (5xx), `connection` (network or timeout), `internal` (framework, plugin or developer
 * error), `setup` (failed before the agent replied), `unknown`.
 */
export type ErrorType =
  | 'authentication'
  | 'permission'
  | 'rate_limit'
  | 'invalid_request'
  | 'upstream'
  | 'connection'
  | 'internal'
  | 'setup'
  | 'unknown';
