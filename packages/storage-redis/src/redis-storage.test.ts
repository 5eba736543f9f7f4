import {
  AgentkitError,
  ConfigError,
  VersionConflictError,
  createAgentState,
  type AgentState,
} from '@agentkit/core';
import { pausedStateFixture, sessionStoreConformanceCases } from '@agentkit/core/testing';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL, deleteByPrefix, uniquePrefix } from '@agentkit/test-redis';
import { RedisKeys } from './redis-keys';
import { RedisStorage } from './redis-storage';

const pausedState = (sessionId: string, note: string) => pausedStateFixture({ sessionId, note });

let admin: Redis;
const prefixes: string[] = [];
const stores: RedisStorage[] = [];

beforeAll(async () => {
  admin = new Redis(REDIS_URL);
});
afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  for (const p of prefixes.splice(0)) await deleteByPrefix(admin, p);
});
afterAll(async () => {
  await admin.quit();
});

function open(options: ConstructorParameters<typeof RedisStorage>[0] = {}): {
  store: RedisStorage;
  keys: RedisKeys;
  prefix: string;
} {
  const prefix = options.keyPrefix ?? uniquePrefix('redis');
  prefixes.push(prefix);
  const store = new RedisStorage({ url: REDIS_URL, ...options, keyPrefix: prefix });
  stores.push(store);
  return { store, keys: new RedisKeys(prefix), prefix };
}

describe('RedisStorage conformance (single node)', () => {
  const factory = async () => {
    const keyPrefix = uniquePrefix('conformance');
    const store = new RedisStorage({ url: REDIS_URL, keyPrefix });
    return {
      store,
      cleanup: async () => {
        await store.close();
        await deleteByPrefix(admin, keyPrefix);
      },
    };
  };
  for (const c of sessionStoreConformanceCases(factory)) it(c.name, c.run);
});

describe('RedisStorage key layout', () => {
  it('stores a record as a hash and indexes it in the pair’s sorted set, under one hash tag', async () => {
    const { store, keys } = open();
    const key = { userId: 'u:1', agentId: 'a{1}', sessionId: 's*1' };
    const record = await store.upsertSession(key.userId, key.agentId, key.sessionId, { metadata: { t: 1 } });
    const hash = await admin.hgetall(keys.record(key));
    expect(hash).toMatchObject({ v: '1', c: record.createdAt, u: record.updatedAt, m: '{"t":1}' });
    expect(JSON.parse(hash.s as string)).toEqual(record.state);
    const members = await admin.zrange(keys.index(key.userId, key.agentId), '0', '-1');
    expect(members).toEqual([RedisKeys.member(Date.parse(record.createdAt), key.sessionId)]);
    expect(keys.record(key)).toMatch(/^[^{]*\{u%3A1:a%7B1%7D\}:s:s%2A1$/);
    expect(await admin.ttl(keys.record(key))).toBe(-1);
    const grant = await store.acquireLease(key.userId, key.agentId, key.sessionId, { owner: 'me' });
    expect(keys.lease(key)).toMatch(/^[^{]*\{u%3A1:a%7B1%7D\}:l:s%2A1$/);
    expect(await admin.hgetall(keys.lease(key))).toEqual({
      t: String(grant.token),
      o: 'me',
      e: String(grant.expiresAt),
      g: expect.any(String),
    });
  });
});

describe('RedisStorage with two clients', () => {
  it('concurrent load–modify–save from two connections: one wins per round, the loser is told and loses nothing', async () => {
    const prefix = uniquePrefix('two-clients');
    const { store: a } = open({ keyPrefix: prefix });
    const { store: b } = open({ keyPrefix: prefix });
    await a.upsertSession('u', 'a', 's', { state: pausedState('s', 'start') });
    for (let round = 0; round < 20; round++) {
      const [ra, rb] = await Promise.all([a.getSession('u', 'a', 's'), b.getSession('u', 'a', 's')]);
      expect(ra?.version).toBe(rb?.version);
      const results = await Promise.allSettled([
        a.updateSessionState('u', 'a', 's', pausedState('s', `a${round}`), {
          expectedVersion: ra?.version as number,
        }),
        b.updateSessionState('u', 'a', 's', pausedState('s', `b${round}`), {
          expectedVersion: rb?.version as number,
        }),
      ]);
      const winners = results.filter((r) => r.status === 'fulfilled');
      expect(winners).toHaveLength(1);
      const loser = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(loser.reason).toBeInstanceOf(VersionConflictError);
      const stored = await a.getSession('u', 'a', 's');
      expect(stored?.version).toBe((ra?.version as number) + 1);
      expect(stored?.state).toEqual(
        (winners[0] as PromiseFulfilledResult<{ state: AgentState }>).value.state,
      );
    }
  });
});

describe('RedisStorage TTL', () => {
  it('expires a session ttlSeconds after its last read or write (sliding), and listing forgets it', async () => {
    const { store, keys } = open({ ttlSeconds: 2 });
    const recordKey = keys.record({ userId: 'u', agentId: 'a', sessionId: 's' });
    const indexKey = keys.index('u', 'a');
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    await store.upsertSession('u', 'a', 's');
    expect(await admin.pttl(recordKey)).toBeGreaterThan(1500);
    expect(await admin.pttl(recordKey)).toBeLessThanOrEqual(2000);
    expect(await admin.pttl(indexKey)).toBeGreaterThan(1500);
    await sleep(600);
    expect(await admin.pttl(recordKey)).toBeLessThan(1500);
    expect(await store.getSession('u', 'a', 's')).not.toBeNull();
    expect(await admin.pttl(recordKey)).toBeGreaterThan(1500); // a read slides the expiry
    await sleep(600);
    expect(
      (await store.updateSessionState('u', 'a', 's', createAgentState({ sessionId: 's' }))).version,
    ).toBe(2);
    expect(await admin.pttl(recordKey)).toBeGreaterThan(1500); // so does a write
    expect(await admin.pttl(indexKey)).toBeGreaterThan(1500);
    await sleep(2200);
    expect(await store.getSession('u', 'a', 's')).toBeNull();
    expect(await store.listSessions('u', 'a')).toEqual({ sessions: [], cursor: null, skipped: [] });
    expect(await admin.exists(indexKey)).toBe(0);
  });

  it('list prunes index entries whose record expired while the index lives on', async () => {
    const { store, keys } = open({ ttlSeconds: 60 });
    await store.upsertSession('u', 'a', 'gone');
    await store.upsertSession('u', 'a', 'kept');
    await admin.del(keys.record({ userId: 'u', agentId: 'a', sessionId: 'gone' }));
    const page = await store.listSessions('u', 'a', { limit: 1 });
    expect(page.sessions.map((s) => s.sessionId)).toEqual(['kept']);
    expect(page.cursor).toBeNull();
    expect(await admin.zcard(keys.index('u', 'a'))).toBe(1);
  });
});

describe('RedisStorage options and lifecycle', () => {
  it('rejects bad options with ConfigError', () => {
    expect(() => new RedisStorage({ keyPrefix: 'a{b' })).toThrow(ConfigError);
    expect(() => new RedisStorage({ ttlSeconds: 0 })).toThrow(ConfigError);
    expect(() => new RedisStorage({ ttlSeconds: 1.5 })).toThrow(ConfigError);
    for (const bad of [0, -5, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(() => new RedisStorage({ connectTimeoutMs: bad })).toThrow(/connectTimeoutMs/);
      expect(() => new RedisStorage({ commandTimeoutMs: bad })).toThrow(/commandTimeoutMs/);
    }
  });

  it('never closes a client it did not create, and refuses work after close', async () => {
    const client = new Redis(REDIS_URL);
    const prefix = uniquePrefix('own-client');
    prefixes.push(prefix);
    const store = new RedisStorage({ client, keyPrefix: prefix });
    await store.upsertSession('u', 'a', 's');
    await store.close();
    expect(await client.ping()).toBe('PONG');
    const error = await store.getSession('u', 'a', 's').catch((e: unknown) => e);
    expect(AgentkitError.isInstance(error) && error.code).toBe('STORE_CONNECTION');
    await client.quit();
  });

  it('closes its own client with await using', async () => {
    const prefix = uniquePrefix('dispose');
    prefixes.push(prefix);
    let client: RedisStorage['client'];
    {
      await using store = new RedisStorage({ url: REDIS_URL, keyPrefix: prefix });
      client = store.client;
      await store.upsertSession('u', 'a', 's');
    }
    expect((client as Redis).status).toBe('end');
  });

  it('works with a client that has its own ioredis keyPrefix (listing included)', async () => {
    const clientPrefix = `${uniquePrefix('ioredis-prefix')}:`;
    prefixes.push(clientPrefix);
    const client = new Redis(REDIS_URL, { keyPrefix: clientPrefix });
    const store = new RedisStorage({ client, keyPrefix: 'inner' });
    await store.upsertSession('u', 'a', 's1', { metadata: { n: 1 } });
    expect((await store.listSessions('u', 'a')).sessions.map((s) => s.sessionId)).toEqual(['s1']);
    expect(
      await admin.exists(
        `${clientPrefix}${new RedisKeys('inner').record({ userId: 'u', agentId: 'a', sessionId: 's1' })}`,
      ),
    ).toBe(1);
    expect(await store.deleteSession('u', 'a', 's1')).toBe(true);
    await client.quit();
  });

  it('works with a client that returns numbers as strings (stringNumbers)', async () => {
    const client = new Redis(REDIS_URL, { stringNumbers: true });
    const prefix = uniquePrefix('string-numbers');
    prefixes.push(prefix);
    try {
      const store = new RedisStorage({ client, keyPrefix: prefix });
      const grant = await store.acquireLease('u', 'a', 's', { owner: 'me' });
      expect(grant).toEqual({ token: expect.any(Number), owner: 'me', expiresAt: expect.any(Number) });
      expect(await store.getLease('u', 'a', 's')).toEqual(grant);
      const created = await store.upsertSession('u', 'a', 's', { leaseToken: grant.token });
      expect(created.version).toBe(1);
      const conflict = await store
        .upsertSession('u', 'a', 's', { leaseToken: grant.token, expectedVersion: 5 })
        .catch((e: unknown) => e);
      expect(conflict).toMatchObject({ code: 'VERSION_CONFLICT', actualVersion: 1 });
      expect(await store.deleteSession('u', 'a', 's', { leaseToken: grant.token })).toBe(true);
      expect(await store.deleteSession('u', 'a', 's', { leaseToken: grant.token })).toBe(false);
      expect(await store.releaseLease('u', 'a', 's', grant.token)).toBe(true);
    } finally {
      await client.quit();
    }
  });

  it('connects from host, port and db', async () => {
    const url = new URL(REDIS_URL);
    const prefix = uniquePrefix('db');
    const store = new RedisStorage({
      host: url.hostname,
      port: Number(url.port || 6379),
      db: 3,
      keyPrefix: prefix,
    });
    try {
      await store.upsertSession('u', 'a', 's');
      const db3 = new Redis(REDIS_URL, { db: 3 });
      expect(
        await db3.exists(new RedisKeys(prefix).record({ userId: 'u', agentId: 'a', sessionId: 's' })),
      ).toBe(1);
      await deleteByPrefix(db3, prefix);
      await db3.quit();
    } finally {
      await store.close();
    }
  });
});
