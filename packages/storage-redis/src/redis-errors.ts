import { AgentkitError, type SessionKey, StoreConnectionError, StoreDataError } from '@agentkit/core';

/** The reason of the `StoreDataError` for a session key of the wrong Redis type. */
export const WRONG_TYPE = 'its Redis key holds a value of the wrong type (not a hash).';

/**
 * Turns an error of ioredis into agentkit's store errors: a key of the wrong Redis type is a corrupt
 * record (`StoreDataError` naming the session, never a retryable error); anything else (connection
 * refused or lost, timeouts, cluster down, errors the server replied with) is a `StoreConnectionError` the
 * caller may retry. Agentkit errors pass through.
 */
export function toStoreError(error: unknown, operation: string, session: SessionKey): AgentkitError {
  if (AgentkitError.isInstance(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  if (message.includes('WRONGTYPE')) return new StoreDataError(session, WRONG_TYPE, { cause: error });
  return new StoreConnectionError(`Redis ${operation} failed: ${message}`, { cause: error });
}
