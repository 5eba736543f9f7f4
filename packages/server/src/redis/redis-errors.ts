import { AgentkitError, type SessionKey, StoreConnectionError, StoreDataError } from '@agentkit/core';

/**
 * Turns an error of ioredis into agentkit's store errors: a session key of the wrong Redis type is a
 * corrupt log (`StoreDataError` naming the session); anything else (connection refused or lost, timeouts,
 * cluster down, errors the server replied with) is a `StoreConnectionError` the caller may retry.
 * Agentkit errors pass through.
 */
export function toLogError(error: unknown, operation: string, session: SessionKey | null): AgentkitError {
  if (AgentkitError.isInstance(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (session && message.includes('WRONGTYPE'))
    return new StoreDataError(session, 'its event-log key holds a value of the wrong type (not a stream).', {
      cause: error,
    });
  return new StoreConnectionError(`Redis ${operation} failed: ${message}`, { cause: error });
}
