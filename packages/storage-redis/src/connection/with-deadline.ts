/**
 * Settles like `promise`, unless `ms` pass first (rejects with `onTimeout()`) or `signal` aborts (rejects
 * with its reason). What `promise` does later is ignored, so it never becomes an unhandled rejection.
 */
export function withDeadline<T>(
  promise: Promise<T>,
  ms: number,
  signal: AbortSignal | undefined,
  onTimeout: () => Error,
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    if (signal?.aborted) {
      promise.catch(() => {});
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      done();
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      done();
      reject(onTimeout());
    }, ms);
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        done();
        resolve(value);
      },
      (error: unknown) => {
        done();
        reject(error);
      },
    );
  });
}
