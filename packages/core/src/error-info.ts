import { AgentkitError } from './errors/agentkit-error';
import type { ErrorType } from './errors/error-type';
import type { ModelError } from './errors/model-error';
import { redactSecrets } from './redact-secrets';

/** Why a reply ended with `finishedReason: 'error'`. JSON-serialisable. */
export interface ErrorInfo {
  type: ErrorType;
  message: string;
}

/** Maps an HTTP status to an {@link ErrorType}, or `undefined` for non-error statuses. */
export function errorTypeFromStatus(status: number): ErrorType | undefined {
  if (status === 401) return 'authentication';
  if (status === 403) return 'permission';
  if (status === 429) return 'rate_limit';
  if (status >= 500) return 'upstream';
  if (status >= 400) return 'invalid_request';
  return undefined;
}

const networkNames =
  /^(APIConnectionError|APIConnectionTimeoutError|APITimeoutError|TimeoutError|ConnectionError|FetchError|TransportError|ClientConnect\w*Error)$/;
const networkCodes =
  /^(ECONNRESET|ECONNREFUSED|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|UND_ERR_\w+|ECONNABORTED)$/;

function statusOf(error: object): number | undefined {
  const e = error as {
    status?: unknown | undefined;
    statusCode?: unknown | undefined;
    response?: { status?: unknown | undefined } | undefined;
  };
  for (const s of [e.status, e.statusCode, e.response?.status]) if (typeof s === 'number') return s;
  return undefined;
}

/**
 * Classifies any thrown value into an {@link ErrorInfo}. Walks `cause` chains and `AggregateError`
 * members; uses {@link ModelError} types, HTTP statuses and network error names/codes. Provider error
 * texts are not copied (they may echo secrets); agentkit's own errors keep their message, which names
 * the plugin and hook for {@link PluginHookError}, with secrets removed (`redactSecrets`) and cut to 2,000
 * characters.
 */
export function classifyError(error: unknown): ErrorInfo {
  let info: ErrorInfo;
  try {
    info = classify(error);
  } catch {
    // Reading the thrown value threw (a proxy, a getter): it tells nothing more.
    return { type: 'unknown', message: `The reply failed with an unexpected error (${typeof error}).` };
  }
  // The texts kept (a hook's failure, an adapter's message) may quote a request: no secret, and not
  // without bound, goes on into the stored reply and its stream.
  const text = redactSecrets(info.message);
  info.message = text.length > 2000 ? `${text.slice(0, 2000)}…` : text;
  return info;
}

function classify(error: unknown): ErrorInfo {
  const seen = new Set<unknown>();
  const queue: unknown[] = [error];
  while (queue.length > 0) {
    const e = queue.shift();
    if (typeof e !== 'object' || e === null || seen.has(e)) continue;
    seen.add(e);
    // Checked by code, not instanceof: a pick-and-mix install may hold two copies of core.
    if (AgentkitError.isInstance(e) && e.code === 'MODEL')
      return { type: (e as ModelError).errorType, message: e.message };
    if (AgentkitError.isInstance(e) && e.code === 'PLUGIN_HOOK')
      return { type: 'internal', message: e.message };
    if (AgentkitError.isInstance(e) && e.code === 'REPLY_TIMEOUT')
      return { type: 'connection', message: e.message };
    const status = statusOf(e);
    const fromStatus = status === undefined ? undefined : errorTypeFromStatus(status);
    if (fromStatus) return { type: fromStatus, message: genericMessage(fromStatus, status) };
    const name = (e as { name?: unknown | undefined }).name;
    const code = (e as { code?: unknown | undefined }).code;
    if (
      (typeof name === 'string' && networkNames.test(name)) ||
      (typeof code === 'string' && networkCodes.test(code))
    )
      return { type: 'connection', message: genericMessage('connection') };
    if (e instanceof AggregateError) queue.push(...e.errors);
    if ('cause' in e) queue.push((e as { cause: unknown }).cause);
  }
  if (AgentkitError.isInstance(error)) return { type: 'internal', message: error.message };
  // An unclassified error's text may come from a provider and echo secrets: name its class only (the
  // agent logs the whole error).
  const name = error instanceof Error ? error.name : typeof error;
  return { type: 'unknown', message: `The reply failed with an unexpected error (${name}).` };
}

/** A generic, secret-free message for an error type. */
export function genericMessage(type: ErrorType, status?: number): string {
  const suffix = status === undefined ? '' : ` (HTTP ${status})`;
  switch (type) {
    case 'authentication':
      return `The model provider rejected the credentials${suffix}.`;
    case 'permission':
      return `The credentials lack permission for this request${suffix}.`;
    case 'rate_limit':
      return `The model provider's rate limit was hit${suffix}.`;
    case 'invalid_request':
      return `The model provider rejected the request as invalid${suffix}.`;
    case 'upstream':
      return `The model provider failed${suffix}.`;
    case 'connection':
      return 'The model provider could not be reached (network error or timeout).';
    default:
      return `The request failed${suffix}.`;
  }
}
