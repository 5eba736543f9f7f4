import { AgentkitError } from './errors/agentkit-error';
import { LeaseLostError, type SessionKey } from './errors/store-errors';
import type { LeaseGrant, LeaseOptions, SessionStore } from './session-store';
import { checkLeaseOptions, checkSessionKey } from './session-store-checks';
import { sleep } from './sleep';

/** Options of {@link SessionLease.acquire}. */
export interface SessionLeaseOptions extends LeaseOptions {
  /**
   * Renew automatically every third of `ttlMs` while held. Default `true`. A renewal that fails with
   * `LeaseLostError` (or cannot reach the store before the lease would end) aborts {@link SessionLease.signal}.
   */
  autoRenew?: boolean;
  /**
   * How long to wait for a busy session, polling, before giving up with `SessionBusyError`. Default `0`:
   * fail at once.
   */
  waitMs?: number;
}

/**
 * A held session lease: the right to run the session's next reply and to write its state, fenced by a
 * token the store checks on every write (`leaseToken`). Renews itself while held; `signal` aborts the
 * moment the lease is lost, so work under it (a reply) stops. Release it when done, or let
 * `await using` do it.
 * @example
 * await using lease = await SessionLease.acquire(store, { userId, agentId, sessionId });
 * const record = await store.getSession(userId, agentId, sessionId);
 * // … run the reply with { signal: lease.signal } …
 * await store.updateSessionState(userId, agentId, sessionId, agent.state, lease.writeOptions());
 */
export class SessionLease implements AsyncDisposable {
  /** The session. */
  readonly key: SessionKey;
  /** The fencing token: pass it with every write (`lease.writeOptions()`). */
  readonly token: number;
  /** Who holds it. */
  readonly owner: string;
  /** Aborted (with a `LeaseLostError`) when the lease is lost; never aborted by a release. */
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly ttlMs: number;
  private expires: number;
  /** When the last grant or renewal was asked for, by the holder's clock (the lease ends ttl after it). */
  private grantedAt: number;
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** Fires when the lease ends by the holder's clock (`grantedAt + ttlMs`) unless a renewal moved it. */
  private endTimer: ReturnType<typeof setTimeout> | undefined;
  private state: 'held' | 'released' | 'lost' = 'held';
  private renewing: Promise<void> | undefined;

  private constructor(
    private readonly store: SessionStore,
    key: SessionKey,
    grant: LeaseGrant,
    ttlMs: number,
    grantedAt: number,
    autoRenew: boolean,
  ) {
    this.key = key;
    this.token = grant.token;
    this.owner = grant.owner;
    this.expires = grant.expiresAt;
    this.ttlMs = ttlMs;
    this.grantedAt = grantedAt;
    this.signal = this.controller.signal;
    this.watchEnd();
    if (autoRenew) this.schedule(ttlMs / 3);
  }

  /**
   * Takes the session's lease. Throws `SessionBusyError` when another holder has it (after `waitMs`,
   * polling), `InvalidInputError` for bad ids or options, and the store's connection errors.
   */
  static async acquire(
    store: SessionStore,
    key: SessionKey,
    options: SessionLeaseOptions = {},
  ): Promise<SessionLease> {
    const checked = checkSessionKey(key?.userId, key?.agentId, key?.sessionId);
    const { ttlMs, owner, signal } = checkLeaseOptions(options);
    const waitUntil = Date.now() + Math.max(0, options.waitMs ?? 0);
    for (let delay = 25; ; delay = Math.min(delay * 2, 500)) {
      const askedAt = Date.now();
      try {
        const grant = await store.acquireLease(checked.userId, checked.agentId, checked.sessionId, {
          ttlMs,
          owner,
          ...(signal ? { signal } : {}),
        });
        return new SessionLease(store, checked, grant, ttlMs, askedAt, options.autoRenew !== false);
      } catch (error) {
        const busy = AgentkitError.isInstance(error) && error.code === 'SESSION_BUSY';
        if (!busy || Date.now() + delay > waitUntil) throw error;
        await sleep(delay, signal);
      }
    }
  }

  /** True until the lease is released or lost. */
  get held(): boolean {
    return this.state === 'held';
  }

  /** When the lease ends unless renewed (ms since the epoch, by the store's clock). */
  get expiresAt(): number {
    return this.expires;
  }

  /** The options that fence a write with this lease: `{ leaseToken }`. */
  writeOptions(): { leaseToken: number } {
    return { leaseToken: this.token };
  }

  /**
   * Renews now. Throws `LeaseLostError` (and aborts `signal`) when the lease is gone; other errors
   * (the store is unreachable) are thrown as they are, and the lease is lost once it would have ended.
   */
  async renew(): Promise<void> {
    if (this.state !== 'held') throw new LeaseLostError(this.key, this.token, `it was ${this.state}`);
    this.renewing ??= this.doRenew().finally(() => {
      this.renewing = undefined;
    });
    return this.renewing;
  }

  /** Releases the lease (idempotent; a lost lease needs no release). Never throws for a lost lease. */
  async release(): Promise<void> {
    if (this.state !== 'held') return;
    this.state = 'released';
    clearTimeout(this.timer);
    clearTimeout(this.endTimer);
    const { userId, agentId, sessionId } = this.key;
    try {
      await this.store.releaseLease(userId, agentId, sessionId, this.token);
    } catch {
      // Unreachable store: the lease ends by itself at its expiry.
    }
  }

  /** `await using lease = await SessionLease.acquire(…)` releases it at the end of the scope. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.release();
  }

  private async doRenew(): Promise<void> {
    const { userId, agentId, sessionId } = this.key;
    const askedAt = Date.now();
    try {
      const grant = await this.store.renewLease(userId, agentId, sessionId, this.token, {
        ttlMs: this.ttlMs,
      });
      if (this.state !== 'held') {
        // Renewed on the store after it ended here (the answer came late): nobody uses it, so end it there
        // too, or the next holder waits out a whole ttl for nothing.
        if (this.state === 'lost')
          this.store.releaseLease(userId, agentId, sessionId, this.token).catch(() => {});
        return;
      }
      this.expires = grant.expiresAt;
      this.grantedAt = askedAt;
      this.watchEnd();
    } catch (error) {
      if (AgentkitError.isInstance(error) && error.code === 'LEASE_LOST') this.lose(error as LeaseLostError);
      else if (Date.now() - this.grantedAt >= this.ttlMs)
        this.lose(new LeaseLostError(this.key, this.token, 'it could not be renewed before it expired'));
      throw error;
    }
  }

  private schedule(ms: number): void {
    this.timer = setTimeout(() => {
      if (this.state !== 'held') return;
      this.renew().then(
        () => this.schedule(this.ttlMs / 3),
        () => {
          // Unreachable store: try again soon, while the lease may still be alive.
          if (this.state === 'held') this.schedule(Math.max(20, Math.min(1_000, this.ttlMs / 10)));
        },
      );
    }, ms);
    // Never keep a process alive just to renew a lease.
    (this.timer as { unref?: () => void }).unref?.();
  }

  /**
   * Loses the lease when it ends by this process's clock, whether or not a renewal is still on its way:
   * a renewal that hangs (a frozen store) must not let work go on under a lease that has ended. Timed
   * from when the grant or renewal was asked for, so it never ends later than the store's lease; and a
   * timer, so a process that stalled past it (GC pause, `SIGSTOP`) loses it before its pending I/O runs.
   */
  private watchEnd(): void {
    clearTimeout(this.endTimer);
    this.endTimer = setTimeout(
      () => this.lose(new LeaseLostError(this.key, this.token, 'it ended before it could be renewed')),
      Math.max(0, this.grantedAt + this.ttlMs - Date.now()),
    );
    (this.endTimer as { unref?: () => void }).unref?.();
  }

  private lose(error: LeaseLostError): void {
    if (this.state !== 'held') return;
    this.state = 'lost';
    clearTimeout(this.timer);
    clearTimeout(this.endTimer);
    this.controller.abort(error);
  }
}
