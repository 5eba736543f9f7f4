import { StoreConnectionError } from '@agentkit/core';

/** Calls `fn` until it does not fail with `StoreConnectionError` (Redis is back), for up to `timeoutMs`. */
export async function retryUntil<T>(fn: () => Promise<T>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (error) {
      if (!(error instanceof StoreConnectionError) || Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
