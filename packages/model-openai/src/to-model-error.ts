import { type ErrorType, ModelError } from '@agentkit/core';
import { errorTypeFromStatus, genericMessage, redactSecrets } from '@agentkit/core/model';
import { APIConnectionError, APIError } from 'openai';

/** What {@link toModelError} needs besides the error. */
export interface ToModelErrorContext {
  /** The API key in use, redacted from any provider text that is copied into the message. */
  apiKey?: string | undefined;
}

const networkCodes =
  /^(ECONNRESET|ECONNREFUSED|ETIMEDOUT|EPIPE|ENOTFOUND|EAI_AGAIN|ECONNABORTED|UND_ERR_\w+)$/;

/**
 * Classifies a failure of the `openai` SDK (or of the stream it returned) into a {@link ModelError}:
 * 401 `authentication`, 403 `permission`, 429 `rate_limit` (with `retry-after-ms` / `retry-after`),
 * other 4xx `invalid_request`, 5xx `upstream`, `APIConnectionError` / timeouts / sockets dropped
 * mid-stream `connection`. Errors sent inside a stream (no HTTP status) are classified from their
 * `type` / `code`. The API key never appears in the message: 401 texts are not copied at all, other
 * provider texts are redacted.
 */
export function toModelError(error: unknown, context: ToModelErrorContext = {}): ModelError {
  if (error instanceof ModelError) return error;
  if (error instanceof APIConnectionError) {
    return new ModelError('connection', genericMessage('connection'), { cause: error });
  }
  if (error instanceof APIError) {
    const status = typeof error.status === 'number' ? error.status : undefined;
    const type = (status === undefined ? undefined : errorTypeFromStatus(status)) ?? typeFromBody(error);
    const detail = type === 'authentication' ? undefined : providerDetail(error, context.apiKey);
    const message = detail ? `${genericMessage(type, status)} ${detail}` : genericMessage(type, status);
    return new ModelError(type, message, {
      ...(status === undefined ? {} : { status }),
      ...retryAfter(error.headers),
      cause: error,
    });
  }
  if (isNetworkError(error))
    return new ModelError('connection', genericMessage('connection'), { cause: error });
  // A payload of the wrong shape (`choices` not a list, a `null` event) fails where it is read.
  if (error instanceof SyntaxError || error instanceof TypeError) {
    return new ModelError('upstream', 'The model provider sent a malformed stream.', { cause: error });
  }
  const text = error instanceof Error ? error.message : String(error);
  return new ModelError('unknown', `The model call failed: ${cut(redactSecrets(text, [context.apiKey]))}`, {
    cause: error,
  });
}

/**
 * Classifies an error reported inside a stream (`error` event, `response.failed`) by its type/code. A
 * numeric code (OpenRouter and LiteLLM send the HTTP status there) is read as a status.
 */
export function typeFromErrorCode(code: unknown, type?: string | null): ErrorType {
  const status =
    typeof code === 'number' || (typeof code === 'string' && /^\d{3}$/.test(code)) ? Number(code) : 0;
  const fromStatus = status ? errorTypeFromStatus(status) : undefined;
  if (fromStatus) return fromStatus;
  const text = `${code ?? ''} ${type ?? ''}`.toLowerCase();
  if (/rate_limit|quota|too_many/.test(text)) return 'rate_limit';
  if (/authentication|invalid_api_key|unauthorized/.test(text)) return 'authentication';
  if (/permission|forbidden/.test(text)) return 'permission';
  if (/invalid|not_found|unsupported|context_length|bad_request/.test(text)) return 'invalid_request';
  return 'upstream';
}

/** Provider text cut to 500 characters (after redaction, so no secret is cut into an unrecognisable piece). */
export function cut(text: string): string {
  return text.length > 500 ? `${text.slice(0, 500)}…` : text;
}

function typeFromBody(error: APIError): ErrorType {
  return typeFromErrorCode(error.code, error.type);
}

function providerDetail(error: APIError, apiKey: string | undefined): string | undefined {
  const body = error.error as { message?: unknown | undefined } | undefined;
  const raw = typeof body?.message === 'string' ? body.message : undefined;
  const parts: string[] = [];
  if (error.code) parts.push(`[${error.code}]`);
  if (raw) parts.push(cut(redactSecrets(raw, [apiKey])));
  return parts.length ? parts.join(' ') : undefined;
}

/** Parses `retry-after-ms` (milliseconds) or `retry-after` (seconds or an HTTP date). */
export function retryAfter(headers: Headers | undefined): { retryAfterMs?: number | undefined } {
  if (!headers) return {};
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return { retryAfterMs: Math.round(ms) };
  const value = headers.get('retry-after');
  if (!value) return {};
  const seconds = Number(value.trim());
  if (value.trim() !== '' && Number.isFinite(seconds) && seconds >= 0)
    return { retryAfterMs: Math.round(seconds * 1000) };
  const date = Date.parse(value);
  if (Number.isFinite(date)) return { retryAfterMs: Math.max(0, date - Date.now()) };
  return {};
}

function isNetworkError(error: unknown): boolean {
  const seen = new Set<unknown>();
  let e: unknown = error;
  while (typeof e === 'object' && e !== null && !seen.has(e)) {
    seen.add(e);
    const { name, code, message } = e as {
      name?: unknown | undefined;
      code?: unknown | undefined;
      message?: unknown | undefined;
    };
    if (typeof code === 'string' && networkCodes.test(code)) return true;
    if (name === 'TimeoutError' || name === 'ConnectTimeoutError') return true;
    // undici reports a body cut off mid-stream as `TypeError: terminated`.
    if (name === 'TypeError' && (message === 'terminated' || message === 'fetch failed')) return true;
    e = (e as { cause?: unknown | undefined }).cause;
  }
  return false;
}
