/** Small statistics helpers. */

/** The `p`-quantile (0–1) of `values`, linear interpolation; NaN when empty. */
export function quantile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((x, y) => x - y);
  const pos = (sorted.length - 1) * p;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

/** The median. */
export const median = (values: readonly number[]): number => quantile(values, 0.5);

/** Median with min and max, the summary of repeated measurements across processes. */
export interface Summary {
  median: number;
  min: number;
  max: number;
  n: number;
}

/** Summarises repeated measurements. */
export function summarize(values: readonly number[]): Summary {
  return { median: median(values), min: Math.min(...values), max: Math.max(...values), n: values.length };
}

/** Collects garbage thoroughly (the child runs with `--expose-gc`). */
export async function fullGc(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  for (let i = 0; i < 4; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
}
