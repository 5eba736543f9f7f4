import { ReplyTimeoutError } from './errors/reply-timeout-error';

/**
 * Runs `fn` with a time limit (`ReplyOptions.timeoutMs`): when it runs past `timeoutMs`, `controller` (the
 * reply's) is aborted with a {@link ReplyTimeoutError}, which stops the model call, hooks and tools like an
 * interrupt, and the reply ends `error` (`reply-ending.ts`). A hung tool or provider needs no signal of the
 * caller's.
 */
export async function withDeadline<T>(
  controller: AbortController,
  timeoutMs: number | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  if (timeoutMs === undefined) return fn();
  const timer = setTimeout(() => controller.abort(new ReplyTimeoutError(timeoutMs)), timeoutMs);
  try {
    return await fn();
  } finally {
    clearTimeout(timer);
  }
}

/** The error a reply ends with when its deadline, not a caller, aborted it; `undefined` otherwise. */
export function deadlineError(signal: AbortSignal): ReplyTimeoutError | undefined {
  return ReplyTimeoutError.isInstance(signal.reason) ? signal.reason : undefined;
}
