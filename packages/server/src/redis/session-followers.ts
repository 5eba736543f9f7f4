import { compareLogIds, type LogId } from '../log-ids';

/** The longest delay `setTimeout` takes; longer ones fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface Waiter {
  /** Wake when the log holds an entry after this (`null`: any entry). */
  after: LogId | null;
  done(): void;
}

interface Followed {
  stream: string;
  channel: string;
  waiters: Set<Waiter>;
  checking: boolean;
  checkAgain: boolean;
  /** Unsubscribes a while after the last waiter left (a follower comes back after each read). */
  idleTimer: ReturnType<typeof setTimeout> | null;
}

/** What {@link SessionFollowers} needs from Redis. */
export interface FollowerBackend {
  /** Resolves once appends to the channel reach {@link SessionFollowers.wake}. */
  subscribe(channel: string): Promise<void>;
  unsubscribe(channel: string): void;
  /** The newest readable entry after `after` (`null`: any), or `null`. */
  lastReadable(stream: string, after: LogId | null): Promise<LogId | null>;
}

/**
 * The followers (`waitFor` calls) of one event-log instance, grouped by session. Each followed session
 * has one subscription to its wake-up channel on the shared pub/sub connection, and at most one check of
 * its stream in flight whatever the number of followers. A follower resolves when a wake-up message or a
 * check shows an entry after its position; checks run when a follower comes, when the subscription is in
 * place (so no append can fall between a check and the subscription), after reconnects and on the
 * safety timer.
 */
export class SessionFollowers {
  private readonly followed = new Map<string, Followed>();
  private closed = false;

  constructor(
    private readonly backend: FollowerBackend,
    private readonly lingerMs: number,
  ) {}

  /** Resolves when the stream may hold an entry after `after`, after `timeoutMs`, or when `signal` aborts. */
  wait(
    stream: string,
    channel: string,
    after: LogId | null,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<void> {
    if (this.closed || signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const followed = this.follow(stream, channel);
      const waiter: Waiter = {
        after,
        done: () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', waiter.done);
          if (followed.waiters.delete(waiter) && followed.waiters.size === 0) this.idle(followed);
          resolve();
        },
      };
      const timer = setTimeout(waiter.done, Math.min(Math.max(timeoutMs, 0), MAX_TIMER_MS));
      signal.addEventListener('abort', waiter.done, { once: true });
      followed.waiters.add(waiter);
      // At once (the log may already hold something), and again when a new subscription is in place.
      this.check(followed);
    });
  }

  /** A wake-up message: `id` was appended to the stream behind `channel`. */
  wake(channel: string, id: LogId): void {
    const followed = this.followed.get(channel);
    if (followed) wakeAfter(followed, id);
  }

  /** Checks every followed session (after a reconnect, and on the safety timer). */
  checkAll(): void {
    for (const followed of this.followed.values()) this.check(followed);
  }

  /** Resolves every pending wait and forgets every session. */
  close(): void {
    this.closed = true;
    for (const followed of this.followed.values()) {
      if (followed.idleTimer) clearTimeout(followed.idleTimer);
      for (const waiter of followed.waiters) waiter.done();
    }
    this.followed.clear();
  }

  private follow(stream: string, channel: string): Followed {
    const followed = this.followed.get(channel);
    if (followed) {
      if (followed.idleTimer) clearTimeout(followed.idleTimer);
      followed.idleTimer = null;
      return followed;
    }
    const created: Followed = {
      stream,
      channel,
      waiters: new Set(),
      checking: false,
      checkAgain: false,
      idleTimer: null,
    };
    this.followed.set(channel, created);
    // Once the subscription is in place, no append can fall between a check and its wake-up: check
    // then (if it failed, the safety timer and the re-check after a reconnect are left).
    this.backend
      .subscribe(channel)
      .catch(() => {})
      .then(() => this.check(created));
    return created;
  }

  private idle(followed: Followed): void {
    if (this.closed) return;
    followed.idleTimer = setTimeout(() => {
      if (followed.waiters.size > 0 || this.followed.get(followed.channel) !== followed) return;
      this.followed.delete(followed.channel);
      this.backend.unsubscribe(followed.channel);
    }, this.lingerMs);
    followed.idleTimer.unref?.();
  }

  /** Reads the newest readable id once for all waiters of the session; again if more came meanwhile. */
  private check(followed: Followed): void {
    if (followed.waiters.size === 0) return;
    if (followed.checking) {
      followed.checkAgain = true;
      return;
    }
    followed.checking = true;
    // One look back to the position of the waiter furthest behind serves them all.
    let lowest: LogId | null | undefined;
    for (const { after } of followed.waiters) {
      if (after === null) {
        lowest = null;
        break;
      }
      if (lowest === undefined || compareLogIds(after, lowest as LogId) < 0) lowest = after;
    }
    this.backend
      .lastReadable(followed.stream, lowest ?? null)
      .then(
        (last) => {
          if (last) wakeAfter(followed, last);
        },
        // Redis unreachable: the waiters keep waiting (until their timeout, a reconnect or the timer).
        () => {},
      )
      .finally(() => {
        followed.checking = false;
        if (followed.checkAgain) {
          followed.checkAgain = false;
          this.check(followed);
        }
      });
  }
}

function wakeAfter(followed: Followed, id: LogId): void {
  for (const waiter of followed.waiters)
    if (waiter.after === null || compareLogIds(id, waiter.after) > 0) waiter.done();
}
