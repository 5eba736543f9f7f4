/** Where a running reply sends its events: a stream the consumer reads, or nowhere (`reply()`). */
export interface EventSink<T> {
  push(event: T): void;
  /** A promise while the consumer is far behind (the producer waits on it), else `undefined`. */
  backpressure(): Promise<void> | undefined;
  /**
   * Lets the consumer pull a model stream itself: each `next()` reads the model's iterator and feeds the
   * chunk to `handle` (which pushes its events). Resolves when the model stream ends, rejects with its
   * error. One promise hop per delta between the model and the consumer.
   */
  pump?(iterator: AsyncIterator<unknown>, handle: (chunk: unknown) => void): Promise<void>;
}

interface Pump {
  iterator: AsyncIterator<unknown>;
  handle: (chunk: unknown) => void;
  resolve: () => void;
  reject: (error: unknown) => void;
}

const HIGH_WATER = 4096;

/**
 * The async iterator `replyStream` returns. The reply runs on its own and pushes events here; `next()`
 * hands them out in order — straight from the queue when the consumer is behind, so a streamed delta
 * costs one promise hop, not one per layer of the loop. `return()` (a `break` out of `for await`) stops
 * the reply like an interrupt and waits for it to end cleanly.
 */
export class ReplyStream<T, R> implements AsyncGenerator<T, void>, EventSink<T> {
  /**
   * The oldest waiting event when it arrived to an empty queue (the common case while a model streams):
   * kept out of `queue` so a streamed delta allocates no queue storage. Always handed out before `queue`.
   */
  private single: T | undefined;
  private queue: T[] = [];
  private head = 0;
  private waiter: { resolve: (r: IteratorResult<T, void>) => void; reject: (e: unknown) => void } | undefined;
  /** Whether a read waits on the model's iterator (a `next()` not yet settled). */
  private pulling = false;
  /** The last `next()` handed out, and how many wait behind it: reads not awaited one by one keep order. */
  private tail: Promise<IteratorResult<T, void>> | undefined;
  private queued = 0;
  private drained: (() => void) | undefined;
  private state: 'idle' | 'running' | 'done' = 'idle';
  private failure: { error: unknown } | undefined;
  private finished: Promise<void> | undefined;
  private pumping: Pump | undefined;
  /** Set once the consumer stopped reading: nothing may wait for its pulls any more. */
  private stopped: unknown;

  constructor(
    /** Starts the reply; events go to `sink`, the result (the final message) comes last when wanted. */
    private readonly start: (sink: EventSink<T>) => Promise<R>,
    private readonly stop: (reason: unknown) => void,
    private readonly finalValue: (result: R) => T | undefined,
  ) {}

  push(event: T): void {
    const w = this.waiter;
    if (w) {
      this.waiter = undefined;
      w.resolve({ value: event, done: false });
    } else if (this.single === undefined && this.head === this.queue.length) this.single = event;
    else this.queue.push(event);
  }

  backpressure(): Promise<void> | undefined {
    if (this.queue.length - this.head < HIGH_WATER) return undefined;
    return new Promise((resolve) => {
      this.drained = resolve;
    });
  }

  pump(iterator: AsyncIterator<unknown>, handle: (chunk: unknown) => void): Promise<void> {
    if (this.stopped !== undefined) {
      void iterator.return?.()?.catch(() => {});
      return Promise.reject(this.stopped);
    }
    return new Promise((resolve, reject) => {
      this.pumping = { iterator, handle, resolve, reject };
      const w = this.waiter;
      if (w) {
        this.waiter = undefined;
        this.pull().then(w.resolve, w.reject);
      }
    });
  }

  /** Reads the pumped model stream until it yields an event (or ends), then hands out the next event. */
  private pull(): Promise<IteratorResult<T, void>> {
    this.pulling = true;
    return this.pumping!.iterator.next().then(this.pulled, this.pullFailed);
  }

  // The pull callbacks are made once per stream, not per delta.
  private readonly pulled = (
    r: IteratorResult<unknown>,
  ): IteratorResult<T, void> | Promise<IteratorResult<T, void>> => {
    this.pulling = false;
    const p = this.pumping;
    if (!p) return this.read(); // the consumer stopped reading meanwhile
    if (r.done) {
      this.pumping = undefined;
      p.resolve();
    } else {
      try {
        p.handle(r.value);
      } catch (error) {
        // The chunk was refused (bad data, a limit): the reply's model turn gets the error, not the consumer.
        return this.pullFailed(error);
      }
      // Hand the event over as a plain value: returning a promise from here would cost two more ticks.
      if (this.single !== undefined || this.head < this.queue.length) return this.take();
    }
    return this.read();
  };

  private readonly pullFailed = (error: unknown): Promise<IteratorResult<T, void>> => {
    this.pulling = false;
    const p = this.pumping;
    this.pumping = undefined;
    p?.reject(error);
    return this.read();
  };

  /** Takes the next waiting event (there is one). */
  private take(): IteratorResult<T, void> {
    const single = this.single;
    if (single !== undefined) {
      this.single = undefined;
      return { value: single, done: false };
    }
    const value = this.queue[this.head++]!;
    if (this.head === this.queue.length) {
      this.queue = [];
      this.head = 0;
      const d = this.drained;
      this.drained = undefined;
      d?.();
    }
    return { value, done: false };
  }

  next(): Promise<IteratorResult<T, void>> {
    if (this.waiter !== undefined || this.pulling || this.queued > 0) {
      // A read while another is pending (not `for await`): it is served after the ones before it.
      this.queued++;
      const after = () => {
        this.queued--;
        return this.read();
      };
      return (this.tail = this.tail!.then(after, after));
    }
    return (this.tail = this.read());
  }

  private read(): Promise<IteratorResult<T, void>> {
    if (this.state === 'idle') this.begin();
    if (this.single !== undefined || this.head < this.queue.length) return Promise.resolve(this.take());
    if (this.state === 'done') {
      const f = this.failure;
      this.failure = undefined;
      return f ? Promise.reject(f.error) : Promise.resolve({ value: undefined, done: true });
    }
    if (this.pumping) return this.pull();
    const d = this.drained;
    this.drained = undefined;
    d?.();
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
    });
  }

  async return(): Promise<IteratorResult<T, void>> {
    if (this.state === 'running') {
      const reason = new DOMException('The consumer stopped reading the reply stream.', 'AbortError');
      this.stopped = reason;
      this.stop(reason);
      this.drained?.();
      const p = this.pumping;
      if (p) {
        // Nobody pulls the model stream any more: close it and let the reply end.
        this.pumping = undefined;
        await p.iterator.return?.().catch(() => {});
        p.reject(reason);
      }
      await this.finished;
    }
    this.state = 'done';
    this.single = undefined;
    this.queue = [];
    this.head = 0;
    return { value: undefined, done: true };
  }

  async throw(error: unknown): Promise<IteratorResult<T, void>> {
    await this.return();
    throw error;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.return();
  }

  private begin(): void {
    this.state = 'running';
    let started: Promise<R>;
    try {
      started = this.start(this);
    } catch (error) {
      started = Promise.reject(error);
    }
    this.finished = started.then(
      (result) => {
        const last = this.finalValue(result);
        if (last !== undefined) this.push(last);
      },
      (error) => {
        this.failure = { error };
      },
    );
    void this.finished.then(() => {
      this.state = 'done';
      const w = this.waiter;
      if (!w) return;
      this.waiter = undefined;
      const f = this.failure;
      this.failure = undefined;
      if (f) w.reject(f.error);
      else w.resolve({ value: undefined, done: true });
    });
  }
}
