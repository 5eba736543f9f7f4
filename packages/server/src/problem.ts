import { AgentkitError } from '@agentkit/core';
import type { Context } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';

/** An RFC 9457 problem document, as every error response of the server carries it. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  /** agentkit's error code (`SESSION_BUSY`, `INVALID_INPUT`, …) or the server's (`NOT_FOUND`, …). */
  code: string;
  /** The request id (also in the `X-Request-Id` header and the logs). */
  requestId?: string;
}

const STATUS_BY_CODE: Record<string, ContentfulStatusCode> = {
  INVALID_INPUT: 400,
  INVALID_MESSAGE: 400,
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  SESSION_NOT_FOUND: 404,
  SESSION_BUSY: 409,
  REPLY_PAUSED: 409,
  RESUME_MISMATCH: 409,
  VERSION_CONFLICT: 409,
  LEASE_LOST: 409,
  PAYLOAD_TOO_LARGE: 413,
  TOO_MANY_REPLIES: 429,
  STORE_CONNECTION: 503,
  SERVER_DRAINING: 503,
};

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  413: 'Payload Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

/** A problem response for a status and code; never carries a stack trace. */
export function problem(c: Context, status: ContentfulStatusCode, code: string, detail: string): Response {
  const body: Problem = {
    type: `https://agentkit.dev/problems/${code.toLowerCase().replaceAll('_', '-')}`,
    title: TITLES[status] ?? 'Error',
    status,
    detail,
    code,
  };
  const requestId = c.get('requestId' as never) as string | undefined;
  if (requestId) body.requestId = requestId;
  return c.body(JSON.stringify(body), status, { 'Content-Type': 'application/problem+json' });
}

/**
 * The response for an error thrown while handling a request: agentkit's typed errors map to their HTTP
 * status with their message (written to be safe to show); anything else is a 500 with a generic text.
 */
export function problemFor(c: Context, error: unknown): Response {
  if (AgentkitError.isInstance(error)) {
    const status = STATUS_BY_CODE[error.code];
    if (status !== undefined) {
      const response = problem(c, status, error.code, error.message);
      const retry = retryAfter(error);
      if (retry !== undefined) response.headers.set('Retry-After', String(retry));
      return response;
    }
    if (error.code === 'STORE_DATA')
      return problem(c, 500, 'STORE_DATA', 'The stored session is corrupt; an operator must look at it.');
  }
  return problem(c, 500, 'INTERNAL', 'The server failed to handle the request.');
}

/** Seconds a client should wait before retrying, for errors that know it. */
function retryAfter(error: AgentkitError): number | undefined {
  const e = error as AgentkitError & { retryAfterSeconds?: number; expiresAt?: number | null };
  if (typeof e.retryAfterSeconds === 'number') return e.retryAfterSeconds;
  if (error.code === 'SESSION_BUSY' && typeof e.expiresAt === 'number')
    return Math.max(1, Math.min(60, Math.ceil((e.expiresAt - Date.now()) / 1000)));
  if (error.code === 'SERVER_DRAINING' || error.code === 'STORE_CONNECTION') return 1;
  return undefined;
}
