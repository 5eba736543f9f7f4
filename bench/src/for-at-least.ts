import { performance } from 'node:perf_hooks';

/** Runs `fn` again and again until `ms` have passed and it ran at least `times` times. */
export async function forAtLeast(ms: number, times: number, fn: () => Promise<unknown>): Promise<void> {
  const start = performance.now();
  for (let i = 0; i < times || performance.now() - start < ms; i++) await fn();
}
