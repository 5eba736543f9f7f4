import { AgentkitError, type SessionKey, StoreConnectionError, StoreDataError } from '@agentkit/core';

/**
 * Turns an error of ioredis into agentkit's store errors: a session's key of the wrong Redis type is
 * corrupt data (`StoreDataError` naming the session, with `wrongType` as the reason, never a retryable
 * error); anything else (connection refused or lost, timeouts, cluster down, errors the server replied
 * with) is a `StoreConnectionError` the caller may retry. Agentkit errors pass through.
 */
export function toStoreError(
  error: unknown,
  operation: string,
  session: SessionKey | null,
  wrongType: string,
): AgentkitError {
  if (AgentkitError.isInstance(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (session && message.includes('WRONGTYPE'))
    return new StoreDataError(session, wrongType, { cause: error });
  return new StoreConnectionError(`Redis ${operation} failed: ${message}`, { cause: error });
}
