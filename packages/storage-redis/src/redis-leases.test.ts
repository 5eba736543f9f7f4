import { LeaseLostError, SessionBusyError, SessionLease } from '@agentkit/core';
import { pausedStateFixture } from '@agentkit/core/testing';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { REDIS_URL, deleteByPrefix, uniquePrefix } from '@agentkit/test-redis';
import { RedisKeys } from './redis-keys';
import { RedisStorage } from './redis-storage';

let admin: Redis;
const prefixes: string[] = [];
const stores: RedisStorage[] = [];

beforeAll(() => {
  admin = new Redis(REDIS_URL);
});
afterEach(async () => {
  vi.useRealTimers();
  await Promise.all(stores.splice(0).map((s) => s.close()));
  for (const p of prefixes.splice(0)) await deleteByPrefix(admin, p);
});
afterAll(async () => {
  await admin.quit();
});

function open(options: ConstructorParameters<typeof RedisStorage>[0] = {}, prefix = uniquePrefix('lease')) {
  prefixes.push(prefix);
  const store = new RedisStorage({ url: REDIS_URL, ...options, keyPrefix: prefix });
  stores.push(store);
  return { store, keys: new RedisKeys(prefix), prefix };
}

const key = { userId: 'u', agentId: 'a', sessionId: 's' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function serverMs(): Promise<number> {
  const [seconds, micros] = await admin.time();
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

describe('RedisStorage leases', () => {
  it('grants tokens of at least the server time in ms; its hash expires by itself an hour after the lease', async () => {
    const { store, keys } = open();
    const before = await serverMs();
    const grant = await store.acquireLease('u', 'a', 's', { ttlMs: 2_000, owner: 'me' });
    const after = await serverMs();
    expect(grant.token).toBeGreaterThanOrEqual(before);
    expect(grant.token).toBeLessThanOrEqual(after);
    expect(grant.expiresAt).toBeGreaterThanOrEqual(before + 2_000);
    expect(grant.expiresAt).toBeLessThanOrEqual(after + 2_000);
    const pttl = await admin.pttl(keys.lease(key));
    expect(pttl).toBeGreaterThan(3_600_000);
    expect(pttl).toBeLessThanOrEqual(3_602_000);
  });

  it('tokens only grow: across releases and deleteSession, and after the lease hash is gone', async () => {
    const { store, keys } = open();
    const tokens: number[] = [];
    for (let i = 0; i < 20; i++) {
      const { token } = await store.acquireLease('u', 'a', 's');
      tokens.push(token);
      await store.upsertSession('u', 'a', 's', { leaseToken: token });
      expect(await store.deleteSession('u', 'a', 's', { leaseToken: token })).toBe(true);
      expect(await store.releaseLease('u', 'a', 's', token)).toBe(true);
    }
    for (let i = 1; i < tokens.length; i++) expect(tokens[i]).toBeGreaterThan(tokens[i - 1] as number);
    expect(await admin.exists(keys.lease(key))).toBe(1); // deleteSession kept it
    const last = tokens.at(-1) as number;
    // As when it expires, which is never before the server's clock passed its last token (by an hour).
    await sleep(Math.max(0, last - (await serverMs())) + 2);
    await admin.del(keys.lease(key));
    expect((await store.acquireLease('u', 'a', 's')).token).toBeGreaterThan(last);
  });

  it('a token ahead of the clock counts on from there, and its hash lives until an hour after that time', async () => {
    const { store, keys } = open();
    const ahead = (await serverMs()) + 100_000;
    await admin.hset(keys.lease(key), { t: String(ahead), o: 'past holder', e: '0' });
    const grant = await store.acquireLease('u', 'a', 's', { ttlMs: 1_000 });
    expect(grant.token).toBe(ahead + 1);
    expect(await admin.pttl(keys.lease(key))).toBeGreaterThan(100_000 + 3_600_000 - 5_000);
  });

  it("a lease ends by the Redis server's clock, not by the caller's", async () => {
    const { store, prefix } = open();
    const { store: other } = open({}, prefix);
    await store.upsertSession('u', 'a', 's');
    // This process's clock runs ten minutes fast; the lease still lasts its ttl on the server.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 600_000);
    expect(Date.now() - (await serverMs())).toBeGreaterThan(590_000);
    const grant = await store.acquireLease('u', 'a', 's', { ttlMs: 4_000, owner: 'fast-clock' });
    expect(Math.abs(grant.expiresAt - 4_000 - (await serverMs()))).toBeLessThan(1_000);
    expect((await store.getLease('u', 'a', 's'))?.owner).toBe('fast-clock');
    expect(
      (
        await store.updateSessionState('u', 'a', 's', pausedStateFixture({ sessionId: 's' }), {
          leaseToken: grant.token,
        })
      ).version,
    ).toBe(2);
    vi.useRealTimers();
    const busy = await other.acquireLease('u', 'a', 's').catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(SessionBusyError);
    expect(busy).toMatchObject({ owner: 'fast-clock', expiresAt: grant.expiresAt });
    await sleep(Math.max(0, grant.expiresAt - (await serverMs())) + 50);
    expect(await other.getLease('u', 'a', 's')).toBeNull();
    expect((await other.acquireLease('u', 'a', 's', { owner: 'next' })).token).toBeGreaterThan(grant.token);
  }, 15_000);

  it('with ttlSeconds the session expires, while its lease hash keeps its own expiry', async () => {
    const { store, keys } = open({ ttlSeconds: 1 });
    const grant = await store.acquireLease('u', 'a', 's', { ttlMs: 10_000 });
    await store.upsertSession('u', 'a', 's', { leaseToken: grant.token });
    await sleep(1_300);
    expect(await store.getSession('u', 'a', 's')).toBeNull();
    expect((await store.getLease('u', 'a', 's'))?.token).toBe(grant.token);
    expect(await admin.pttl(keys.lease(key))).toBeGreaterThan(3_600_000);
  });

  it('an acquire aborted while its grant is on the way leaves no lease held by nobody', async () => {
    const { store } = open();
    await store.getSession('u', 'a', 'warm'); // connected: the next call is sent at once
    for (let i = 0; i < 5; i++) {
      const controller = new AbortController();
      const acquiring = store.acquireLease('u', 'a', `s${i}`, { signal: controller.signal });
      controller.abort(new Error('the caller gave up'));
      await expect(acquiring).rejects.toThrow('the caller gave up');
      // The grant ran on the server, and was ended right after: the session is free for the next holder.
      await sleep(20);
      expect(await store.getLease('u', 'a', `s${i}`)).toBeNull();
      const next = await store.acquireLease('u', 'a', `s${i}`);
      expect(await store.releaseLease('u', 'a', `s${i}`, next.token)).toBe(true);
    }
  });

  it('LeaseLostError says why: released, expired, replaced by a later lease, or never granted', async () => {
    const { store } = open();
    await store.upsertSession('u', 'a', 's');
    const write = (token: number) =>
      store
        .updateSessionState('u', 'a', 's', pausedStateFixture({ sessionId: 's' }), { leaseToken: token })
        .catch((e) => e);
    const first = await store.acquireLease('u', 'a', 's', { ttlMs: 150 });
    await sleep(250);
    expect(((await write(first.token)) as Error).message).toMatch(/no longer held \(it expired\)/);
    const second = await store.acquireLease('u', 'a', 's');
    const error = (await write(first.token)) as LeaseLostError;
    expect(error).toBeInstanceOf(LeaseLostError);
    expect(error.token).toBe(first.token);
    expect(error.message).toMatch(/a later lease replaced it/);
    expect(((await write(second.token + 1)) as Error).message).toMatch(/it was never granted/);
    await store.releaseLease('u', 'a', 's', second.token);
    expect(((await write(second.token)) as Error).message).toMatch(/it was released/);
    expect((await store.getSession('u', 'a', 's'))?.version).toBe(1);
  });

  it("core's SessionLease renews itself on Redis, fences writes, and aborts its signal when the lease is taken away", async () => {
    const { store, keys } = open();
    await store.upsertSession('u', 'a', 's');
    const lease = await SessionLease.acquire(store, key, { ttlMs: 1_000 });
    await sleep(2_500); // two and a half ttls: alive only because it renews
    expect(lease.held).toBe(true);
    expect((await store.getLease('u', 'a', 's'))?.token).toBe(lease.token);
    const saved = await store.updateSessionState(
      'u',
      'a',
      's',
      pausedStateFixture({ sessionId: 's' }),
      lease.writeOptions(),
    );
    expect(saved.version).toBe(2);
    // An operator ends the lease behind the holder's back: its next renewal fails and aborts the signal.
    await admin.hset(keys.lease(key), 'e', '0');
    await new Promise((resolve) => lease.signal.addEventListener('abort', resolve, { once: true }));
    expect(lease.signal.reason).toBeInstanceOf(LeaseLostError);
    expect(lease.held).toBe(false);
    await lease.release();
  }, 15_000);
});
