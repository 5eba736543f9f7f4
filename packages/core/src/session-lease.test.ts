import { describe, expect, it } from 'vitest';
import { StoreConnectionError } from './errors/store-errors';
import { InMemorySessionStore } from './in-memory-session-store';
import { SessionLease } from './session-lease';
import type { SessionStore } from './session-store';
import { sleep } from './sleep';

const key = { userId: 'u', agentId: 'a', sessionId: 's' };

describe('SessionLease', () => {
  it('renews itself while held, so no one else gets the session', async () => {
    const store = new InMemorySessionStore();
    const lease = await SessionLease.acquire(store, key, { ttlMs: 150, owner: 'me' });
    await sleep(500);
    expect(lease.held).toBe(true);
    expect(lease.signal.aborted).toBe(false);
    await expect(store.acquireLease('u', 'a', 's')).rejects.toMatchObject({
      code: 'SESSION_BUSY',
      owner: 'me',
    });
    await lease.release();
    expect(lease.held).toBe(false);
    expect(await store.getLease('u', 'a', 's')).toBeNull();
  });

  it('aborts its signal with LeaseLostError when another holder took over', async () => {
    const store = new InMemorySessionStore();
    const lease = await SessionLease.acquire(store, key, { ttlMs: 120, autoRenew: false });
    await sleep(200);
    const taker = await store.acquireLease('u', 'a', 's');
    await expect(lease.renew()).rejects.toMatchObject({ code: 'LEASE_LOST' });
    expect(lease.signal.aborted).toBe(true);
    expect(lease.signal.reason).toMatchObject({ code: 'LEASE_LOST', token: lease.token });
    expect(lease.held).toBe(false);
    // A release of a lost lease does not touch the taker's.
    await lease.release();
    expect((await store.getLease('u', 'a', 's'))?.token).toBe(taker.token);
  });

  it('is lost once an unreachable store kept it from renewing until it would have ended', async () => {
    const store = new InMemorySessionStore();
    let down = false;
    const flaky: SessionStore = Object.create(store);
    flaky.renewLease = (...args) =>
      down ? Promise.reject(new StoreConnectionError('down')) : store.renewLease(...args);
    const lease = await SessionLease.acquire(flaky, key, { ttlMs: 150 });
    down = true;
    await sleep(400);
    expect(lease.signal.aborted).toBe(true);
    expect(lease.signal.reason).toMatchObject({ code: 'LEASE_LOST' });
  });

  it('is lost when it ends while a renewal hangs (a frozen store), not only once the renewal gives up', async () => {
    const store = new InMemorySessionStore();
    const frozen: SessionStore = Object.create(store);
    // A store that accepts the call and never answers (a SIGSTOPped server, a hung disk).
    frozen.renewLease = () => new Promise(() => {});
    const lease = await SessionLease.acquire(frozen, key, { ttlMs: 150 });
    await sleep(250);
    // The lease ended 150 ms after it was asked for: nothing may be done under it any more.
    expect(lease.held).toBe(false);
    expect(lease.signal.aborted).toBe(true);
    expect(lease.signal.reason).toMatchObject({ code: 'LEASE_LOST', token: lease.token });
  });

  it('ends on the store a renewal whose answer came after the lease ended here', async () => {
    const store = new InMemorySessionStore();
    const late: SessionStore = Object.create(store);
    // The renewal reaches the store at once; its answer takes longer than the rest of the lease.
    late.renewLease = async (...args) => {
      const grant = await store.renewLease(...args);
      await sleep(500);
      return grant;
    };
    const lease = await SessionLease.acquire(late, key, { ttlMs: 600 });
    await sleep(720); // renewed at 200 (until 800 on the store), lost here at 600, answered at 700
    expect(lease.signal.aborted).toBe(true);
    expect(await store.getLease('u', 'a', 's')).toBeNull();
  });

  it('is lost at its end without autoRenew too', async () => {
    const store = new InMemorySessionStore();
    const lease = await SessionLease.acquire(store, key, { ttlMs: 120, autoRenew: false });
    await sleep(200);
    expect(lease.signal.aborted).toBe(true);
    await expect(lease.renew()).rejects.toMatchObject({ code: 'LEASE_LOST' });
  });

  it('waits for a busy session with waitMs, and fails with SessionBusyError without it', async () => {
    const store = new InMemorySessionStore();
    const first = await SessionLease.acquire(store, key);
    await expect(SessionLease.acquire(store, key)).rejects.toMatchObject({ code: 'SESSION_BUSY' });
    setTimeout(() => void first.release(), 100);
    const second = await SessionLease.acquire(store, key, { waitMs: 2_000 });
    expect(second.token).toBeGreaterThan(first.token);
    await second.release();
  });

  it('releases at the end of an `await using` scope and fences writes with its token', async () => {
    const store = new InMemorySessionStore();
    {
      await using lease = await SessionLease.acquire(store, key);
      await store.upsertSession('u', 'a', 's', lease.writeOptions());
      await expect(store.upsertSession('u', 'a', 's')).rejects.toMatchObject({ code: 'SESSION_BUSY' });
    }
    expect(await store.getLease('u', 'a', 's')).toBeNull();
    expect((await store.upsertSession('u', 'a', 's')).version).toBe(2);
  });

  it('rejects bad keys and options before touching the store', async () => {
    const store = new InMemorySessionStore();
    await expect(SessionLease.acquire(store, { ...key, userId: '' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(SessionLease.acquire(store, key, { ttlMs: 1 })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(SessionLease.acquire(store, null as never)).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(await store.getLease('u', 'a', 's')).toBeNull();
  });
});
