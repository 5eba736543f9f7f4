import { classifyError, ModelError } from '@agentkit/core';
import { errorTypeFromStatus, genericMessage, redactSecrets } from '@agentkit/core/model';

interface GoogleErrorBody {
  code?: unknown | undefined;
  message?: unknown | undefined;
  status?: unknown | undefined;
  details?: unknown | undefined;
}

/**
 * The `error` object of a Google API error. The SDK's `ApiError` carries it JSON-encoded in its message
 * (for errors raised from a stream event, after a `got status: …` prefix).
 */
function googleErrorBody(message: string): GoogleErrorBody | undefined {
  const start = message.indexOf('{');
  if (start < 0) return undefined;
  try {
    const parsed = JSON.parse(message.slice(start)) as { error?: unknown | undefined };
    return typeof parsed.error === 'object' && parsed.error !== null
      ? (parsed.error as GoogleErrorBody)
      : undefined;
  } catch {
    return undefined;
  }
}

/** `google.rpc.RetryInfo.retryDelay` (a protobuf Duration such as `"37s"` or `"0.5s"`) in ms. */
function retryDelayMs(body: GoogleErrorBody | undefined): number | undefined {
  if (!Array.isArray(body?.details)) return undefined;
  for (const detail of body.details as unknown[]) {
    if (typeof detail !== 'object' || detail === null) continue;
    const delay = (detail as { retryDelay?: unknown | undefined }).retryDelay;
    if (typeof delay !== 'string') continue;
    const match = /^(\d+(?:\.\d+)?)s$/.exec(delay.trim());
    if (match) return Math.round(Number(match[1]) * 1000);
  }
  return undefined;
}

/** Gemini answers a wrong API key with 400 `INVALID_ARGUMENT` and an `ErrorInfo` reason saying so. */
function isInvalidApiKey(body: GoogleErrorBody | undefined): boolean {
  if (!Array.isArray(body?.details)) return false;
  return (body.details as unknown[]).some(
    (d) =>
      typeof d === 'object' &&
      d !== null &&
      (d as { reason?: unknown | undefined }).reason === 'API_KEY_INVALID',
  );
}

function isApiError(error: unknown): error is Error & { status: number } {
  return (
    error instanceof Error &&
    error.name === 'ApiError' &&
    typeof (error as { status?: unknown | undefined }).status === 'number'
  );
}

/** SDK errors that mean the transport failed (a cut stream leaves half an SSE event behind). */
const truncatedStream = /^(Incomplete JSON segment at the end|Response body is empty)/;

/** What {@link toModelError} needs besides the error. */
export interface ToModelErrorContext {
  /** The API key in use, removed from any text that is copied into the message. */
  apiKey?: string | undefined;
}

/** Text copied into a message: secrets removed first (so none is cut into an unrecognisable piece), then cut. */
function copied(text: string, context: ToModelErrorContext): string {
  const clean = redactSecrets(text, [context.apiKey]);
  return clean.length > 500 ? `${clean.slice(0, 500)}…` : clean;
}

/**
 * Classifies anything the Gemini SDK throws into a {@link ModelError}: an `ApiError`'s HTTP status gives
 * the type (401, and 400 with reason `API_KEY_INVALID`, authentication; 403 permission, 429 rate_limit with the `RetryInfo` delay, 400/404/422
 * invalid_request, 5xx upstream); network failures, timeouts (an `AbortError` the caller did not cause) and
 * streams cut mid-event are `connection`.
 * The message is generic plus Google's status name (and, for invalid requests, Google's explanation, which
 * says what to fix); the original error is the `cause`. Any text copied from the error has its secrets
 * removed (the API key, and anything shaped like a key, token or URL credential: `redactSecrets`), because
 * the message travels on into `ErrorInfo`, the `REPLY_END` event and the stored reply.
 */
export function toModelError(error: unknown, context: ToModelErrorContext = {}): ModelError {
  if (error instanceof ModelError) return error;
  if (isApiError(error)) {
    const status = error.status;
    const body = googleErrorBody(error.message);
    const type = isInvalidApiKey(body) ? 'authentication' : (errorTypeFromStatus(status) ?? 'unknown');
    let message = genericMessage(type, status);
    if (typeof body?.status === 'string') message += ` Google status: ${copied(body.status, context)}.`;
    if (type === 'invalid_request' && typeof body?.message === 'string')
      message += ` ${copied(body.message, context)}`;
    return new ModelError(type, message, { status, retryAfterMs: retryDelayMs(body), cause: error });
  }
  // The caller's own abort never gets here (the adapter rethrows its reason): an abort is the SDK's
  // `httpOptions.timeout` firing, before the response or while it streams.
  if (error instanceof Error && error.name === 'AbortError')
    return new ModelError('connection', genericMessage('connection'), { cause: error });
  if (error instanceof Error && truncatedStream.test(error.message))
    return new ModelError('connection', genericMessage('connection'), { cause: error });
  if (
    error instanceof SyntaxError ||
    (error instanceof Error && error.message.startsWith('exception parsing stream chunk'))
  )
    return new ModelError('upstream', 'Gemini sent a stream event that is not valid JSON.', { cause: error });
  const info = classifyError(error);
  if (info.type === 'connection') return new ModelError('connection', info.message, { cause: error });
  const detail = error instanceof Error ? error.message : String(error);
  return new ModelError(info.type, `The Gemini request failed: ${copied(detail, context)}`, {
    cause: error,
    retryable: false,
  });
}
