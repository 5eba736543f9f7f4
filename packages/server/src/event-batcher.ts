import type { LogEvent } from './event-log';

/**
 * Collects a run's events and appends them to the log in batches: every event pushed while an append is
 * in flight goes into the next one, so a reply streaming thousands of deltas costs a few appends, not
 * one round trip each. `push` returns a promise only when the backlog is large (backpressure).
 */
export class EventBatcher {
  private buffer: LogEvent[] = [];
  private flushing: Promise<void> | undefined;
  private failure: { error: unknown } | undefined;

  constructor(
    private readonly appendBatch: (events: LogEvent[]) => Promise<unknown>,
    private readonly highWaterMark = 1_000,
  ) {}

  /** Queues an event. Throws once an append failed (the log is unreachable: the run must stop). */
  push(event: LogEvent): Promise<void> | undefined {
    if (this.failure) throw this.failure.error;
    this.buffer.push(event);
    this.flushing ??= this.drain();
    return this.buffer.length >= this.highWaterMark ? this.flushing : undefined;
  }

  /** Appends everything queued; rejects when an append failed. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.failure) throw this.failure.error;
  }

  private async drain(): Promise<void> {
    // Let the reply push what it produces synchronously before the first append.
    await new Promise<void>((resolve) => nextTask(resolve));
    try {
      while (this.buffer.length > 0 && !this.failure) {
        const batch = this.buffer;
        this.buffer = [];
        await this.appendBatch(batch);
      }
    } catch (error) {
      this.failure = { error };
    } finally {
      this.flushing = undefined;
    }
  }
}

/** Runs `fn` in a later task (`setImmediate` where the runtime has it: Node, Bun, Deno). */
const nextTask: (fn: () => void) => void =
  typeof globalThis.setImmediate === 'function' ? (fn) => setImmediate(fn) : (fn) => setTimeout(fn, 0);
