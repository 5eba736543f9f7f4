/**
 * Runs several async generators concurrently and yields their values in arrival order. Returns their
 * return values in input order. If one throws, the others are closed and the error propagates.
 */
export async function* mergeAsync<T, R>(generators: AsyncGenerator<T, R>[]): AsyncGenerator<T, R[]> {
  const results = new Array<R>(generators.length);
  const pending = new Map<number, Promise<{ i: number; r: IteratorResult<T, R> }>>();
  const pull = (i: number) => pending.set(i, generators[i]!.next().then((r) => ({ i, r })));
  generators.forEach((_, i) => pull(i));
  try {
    while (pending.size > 0) {
      const { i, r } = await Promise.race(pending.values());
      if (r.done) {
        pending.delete(i);
        results[i] = r.value;
      } else {
        pull(i);
        yield r.value;
      }
    }
  } finally {
    for (const i of pending.keys()) void generators[i]!.return(undefined as R).catch(() => {});
  }
  return results;
}
