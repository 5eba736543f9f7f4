import { AgentkitError, LeaseLostError, SessionLease, StoreConnectionError } from '@agentkit/core';
import { pausedStateFixture } from '@agentkit/core/testing';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type RedisProcess, startRedisServer } from '@agentkit/test-redis';
import { retryUntil } from '../test/retry-until';
import { RedisStorage } from './redis-storage';

// A frozen server (SIGSTOP) accepts TCP connections but never answers: every call must still end, with
// StoreConnectionError, within its timeout. Timeouts are short here; margins are generous because the
// machine is shared.
const TIMEOUT_MS = 400;
const MARGIN_MS = 3000;

let server: RedisProcess;
const stores: RedisStorage[] = [];

beforeAll(async () => {
  server = await startRedisServer();
});
afterEach(async () => {
  server.thaw();
  await Promise.all(stores.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await server.dispose();
});

function open(options: ConstructorParameters<typeof RedisStorage>[0] = {}): RedisStorage {
  const store = new RedisStorage({
    port: server.port,
    keyPrefix: 'timeouts',
    connectTimeoutMs: TIMEOUT_MS,
    commandTimeoutMs: TIMEOUT_MS,
    ...options,
  });
  stores.push(store);
  return store;
}

/**
 * Every method of the store, each with a signal of its own from `signal()` (if given). They write to
 * `session`, except the delete and the lease, which go to sessions of their own.
 */
function everyMethod(store: RedisStorage, session: string, signal?: () => AbortSignal) {
  const s = () => (signal ? { signal: signal() } : {});
  const state = pausedStateFixture({ sessionId: session, note: 'late' });
  return {
    getSession: () => store.getSession('u', 'a', session, s()),
    upsertSession: () => store.upsertSession('u', 'a', session, { metadata: { n: 9 }, ...s() }),
    updateSessionState: () => store.updateSessionState('u', 'a', session, state, s()),
    listSessions: () => store.listSessions('u', 'a', s()),
    deleteSession: () => store.deleteSession('u', 'a', `${session}-deleted`, s()),
    acquireLease: () => store.acquireLease('u', 'a', `${session}-leased`, { ttlMs: 200, ...s() }),
    renewLease: () => store.renewLease('u', 'a', session, 1, s()),
    releaseLease: () => store.releaseLease('u', 'a', session, 1, s()),
    getLease: () => store.getLease('u', 'a', session, s()),
  };
}

async function outcome(call: () => Promise<unknown>): Promise<{ error: unknown; ms: number }> {
  const started = Date.now();
  const error = await call().then(
    () => undefined,
    (e: unknown) => e,
  );
  return { error, ms: Date.now() - started };
}

describe('RedisStorage against a frozen server', () => {
  it('every method fails with StoreConnectionError within commandTimeoutMs, and the store works again after the thaw', async () => {
    const store = open();
    await store.upsertSession('u', 'a', 'frozen', { metadata: { n: 1 } });
    server.freeze();
    for (const [name, call] of Object.entries(everyMethod(store, 'frozen'))) {
      const { error, ms } = await outcome(call);
      expect(error, name).toBeInstanceOf(StoreConnectionError);
      expect((error as Error).message, name).toMatch(new RegExp(`^Redis ${name} failed: `));
      expect(ms, name).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
      expect(ms, name).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
    }
    server.thaw();
    const record = await retryUntil(() => store.getSession('u', 'a', 'frozen'), 15_000);
    expect(record?.version).toBeGreaterThanOrEqual(1);
    // The writes that timed out reached the server and ran after the thaw: "may still take effect".
    expect(record?.version).toBe(3);
    expect(record?.metadata).toEqual({ n: 9 });
    expect(record?.state).toEqual(pausedStateFixture({ sessionId: 'frozen', note: 'late' }));
    const grant = await store.acquireLease('u', 'a', 'frozen', { ttlMs: 5_000 });
    expect(await store.releaseLease('u', 'a', 'frozen', grant.token)).toBe(true);
  }, 30_000);

  it('the first connect to a frozen server fails with StoreConnectionError within connectTimeoutMs, then connects after the thaw', async () => {
    server.freeze();
    const store = open({ commandTimeoutMs: 60_000 });
    const { error, ms } = await outcome(() => store.getSession('u', 'a', 'first'));
    expect(error).toBeInstanceOf(StoreConnectionError);
    expect((error as Error).message).toMatch(/^Redis getSession failed: /);
    expect(ms).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
    server.thaw();
    expect(await retryUntil(() => store.getSession('u', 'a', 'first'), 15_000)).toBeNull();
  }, 30_000);

  it('an aborted signal ends a pending call at once with its reason', async () => {
    const store = open({ commandTimeoutMs: 60_000 });
    await store.getSession('u', 'a', 'abort');
    server.freeze();
    // AbortSignal.timeout aborts with a TimeoutError DOMException as its reason.
    for (const [name, call] of Object.entries(everyMethod(store, 'abort', () => AbortSignal.timeout(100)))) {
      const { error, ms } = await outcome(call);
      expect((error as Error).name, name).toBe('TimeoutError');
      expect(AgentkitError.isInstance(error), name).toBe(false);
      expect(ms, name).toBeLessThan(100 + MARGIN_MS);
    }
    const controller = new AbortController();
    const reason = new Error('the user left');
    const pending = outcome(() => store.getSession('u', 'a', 'abort', { signal: controller.signal }));
    setTimeout(() => controller.abort(reason), 50);
    expect((await pending).error).toBe(reason);
  }, 30_000);

  it('bounds calls on a client the caller passed (offline queue on, no ioredis timeouts)', async () => {
    const client = new Redis({ port: server.port });
    try {
      const store = open({ client });
      await store.getSession('u', 'a', 'theirs');
      server.freeze();
      const { error, ms } = await outcome(() => store.upsertSession('u', 'a', 'theirs'));
      expect(error).toBeInstanceOf(StoreConnectionError);
      expect(ms).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
      server.thaw();
      expect((await retryUntil(() => store.getSession('u', 'a', 'theirs'), 15_000))?.version).toBe(1);
      await store.deleteSession('u', 'a', 'theirs');
    } finally {
      client.disconnect();
    }
  }, 30_000);

  it('a SessionLease whose renewal hangs on the frozen server is lost when it ends, not when the call times out', async () => {
    // The default command timeout (5 s) is longer than the lease: the renewal sent at a third of the ttl
    // is still waiting when the lease ends, and nothing may run under the lease after that.
    const store = open({ commandTimeoutMs: 5_000 });
    const lease = await SessionLease.acquire(
      store,
      { userId: 'u', agentId: 'a', sessionId: 'lease' },
      { ttlMs: 600 },
    );
    server.freeze();
    const started = Date.now();
    await new Promise<void>((resolve) => lease.signal.addEventListener('abort', () => resolve()));
    expect(Date.now() - started).toBeLessThan(600 + 300);
    expect(lease.signal.reason).toBeInstanceOf(LeaseLostError);
    expect(lease.held).toBe(false);
    server.thaw();
    // Once thawed, another holder gets the session (after the lease's end, which the late renewal may have
    // moved by one ttl when it reached the server just in time).
    await new Promise((resolve) => setTimeout(resolve, 700));
    const next = await retryUntil(() => store.acquireLease('u', 'a', 'lease', { ttlMs: 5_000 }), 15_000);
    expect(next.token).toBeGreaterThan(lease.token);
    expect(await store.releaseLease('u', 'a', 'lease', next.token)).toBe(true);
  }, 30_000);

  it('an acquire that timed out on the frozen server leaves no lease once the server runs it', async () => {
    const store = open();
    await store.getSession('u', 'a', 'timed-out');
    server.freeze();
    await expect(store.acquireLease('u', 'a', 'timed-out', { ttlMs: 60_000 })).rejects.toBeInstanceOf(
      StoreConnectionError,
    );
    server.thaw();
    // The grant ran after the thaw (nobody holds it) and was ended right after: the session is free.
    expect(await retryUntil(() => store.getLease('u', 'a', 'timed-out'), 15_000)).toBeNull();
    const next = await store.acquireLease('u', 'a', 'timed-out');
    expect(await store.releaseLease('u', 'a', 'timed-out', next.token)).toBe(true);
  }, 30_000);

  it('close() returns within about a second while the server is frozen', async () => {
    const store = open();
    await store.getSession('u', 'a', 'close');
    server.freeze();
    const started = Date.now();
    await store.close();
    expect(Date.now() - started).toBeLessThan(1000 + MARGIN_MS);
    const client = store.client as Redis;
    if (client.status !== 'end') await new Promise((resolve) => client.once('end', resolve));
    expect(client.status).toBe('end');
  }, 30_000);
});
