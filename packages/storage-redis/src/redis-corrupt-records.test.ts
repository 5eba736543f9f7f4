import { createAgentState, type SessionSummary, StoreDataError } from '@agentkit/core';
import { pausedStateFixture } from '@agentkit/core/testing';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL, deleteByPrefix, uniquePrefix } from '@agentkit/test-redis';
import { RedisKeys } from './redis-keys';
import { RedisStorage } from './redis-storage';

let admin: Redis;
let store: RedisStorage;
let keys: RedisKeys;
let prefix: string;

beforeAll(() => {
  admin = new Redis(REDIS_URL);
});
afterEach(async () => {
  await store.close();
  await deleteByPrefix(admin, prefix);
});
afterAll(async () => {
  await admin.quit();
});

function openStore(): void {
  prefix = uniquePrefix('corrupt');
  keys = new RedisKeys(prefix);
  store = new RedisStorage({ url: REDIS_URL, keyPrefix: prefix });
}

const U = 'u';
const A = 'a';
const at = (sessionId: string) => ({ userId: U, agentId: A, sessionId });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function dataError(promise: Promise<unknown>): Promise<StoreDataError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StoreDataError);
  return error as StoreDataError;
}

/** Every key of the pair with its type and content, to prove that a refused write changed nothing. */
async function snapshot(): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  let cursor = '0';
  do {
    const [next, found] = await admin.scan(cursor, 'MATCH', `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`);
    cursor = next;
    for (const key of found) {
      const type = await admin.type(key);
      out[key] =
        type === 'hash'
          ? await admin.hgetall(key)
          : type === 'zset'
            ? await admin.zrange(key, '0', '-1', 'WITHSCORES')
            : type === 'string'
              ? await admin.get(key)
              : type;
    }
  } while (cursor !== '0');
  return out;
}

/**
 * Ways a stored record can be broken, each planted into an otherwise valid record. `reason` is what the
 * StoreDataError says; `field` is the hash field broken (a write that replaces it repairs the record; every
 * other write is refused); `listed`: the summary is fine, so listing shows it (the state is checked on load).
 */
const corruptions: Array<{
  id: string;
  plant: (recordKey: string) => Promise<unknown>;
  reason: RegExp;
  field?: 'm' | 's' | 'u';
  listed?: boolean;
}> = [
  {
    id: 'wrong-type',
    plant: async (k) => {
      await admin.del(k);
      await admin.set(k, '{"not":"a hash"}');
    },
    reason: /wrong type \(not a hash\)/,
  },
  {
    id: 'metadata-not-json',
    plant: (k) => admin.hset(k, 'm', '{"title":'),
    reason: /metadata is not valid JSON/,
    field: 'm',
  },
  {
    id: 'metadata-array',
    plant: (k) => admin.hset(k, 'm', '[1,2]'),
    reason: /metadata is not a JSON object/,
    field: 'm',
  },
  {
    id: 'metadata-missing',
    plant: (k) => admin.hdel(k, 'm'),
    reason: /metadata is not valid JSON/,
    field: 'm',
  },
  {
    id: 'version-garbage',
    plant: (k) => admin.hset(k, 'v', 'seven'),
    reason: /version "seven" is not a positive/,
  },
  { id: 'version-zero', plant: (k) => admin.hset(k, 'v', '0'), reason: /version "0" is not a positive/ },
  {
    id: 'version-fraction',
    plant: (k) => admin.hset(k, 'v', '1.5'),
    reason: /version "1.5" is not a positive/,
  },
  {
    id: 'version-huge',
    plant: (k) => admin.hset(k, 'v', '99999999999999999999'),
    reason: /version "99999999999999999999" is not a positive/,
  },
  { id: 'version-missing', plant: (k) => admin.hdel(k, 'v'), reason: /version null is not a positive/ },
  {
    id: 'created-garbage',
    plant: (k) => admin.hset(k, 'c', 'yesterday'),
    reason: /createdAt "yesterday" is not a timestamp/,
  },
  { id: 'created-missing', plant: (k) => admin.hdel(k, 'c'), reason: /createdAt null is not a timestamp/ },
  {
    id: 'updated-garbage',
    plant: (k) => admin.hset(k, 'u', 'soon'),
    reason: /updatedAt "soon" is not a timestamp/,
    field: 'u',
  },
  {
    id: 'state-not-json',
    plant: (k) => admin.hset(k, 's', '{"schemaVersion":1,"context":['),
    reason: /not valid JSON/,
    field: 's',
    listed: true,
  },
  {
    id: 'state-bad-shape',
    plant: (k) =>
      admin.hset(k, 's', JSON.stringify({ ...createAgentState({ sessionId: 'x' }), context: 'nope' })),
    reason: /context/,
    field: 's',
    listed: true,
  },
  { id: 'state-missing', plant: (k) => admin.hdel(k, 's'), reason: /has no state/, field: 's', listed: true },
];

/** The writes of a session and the fields each replaces (every write replaces updatedAt). */
const writes = (id: string) => [
  {
    name: 'updateSessionState',
    replaces: ['s', 'u'],
    run: () => store.updateSessionState(U, A, id, pausedStateFixture({ sessionId: id, note: 'new' })),
  },
  {
    name: 'updateSessionState with expectedVersion',
    replaces: ['s', 'u'],
    run: () =>
      store.updateSessionState(U, A, id, pausedStateFixture({ sessionId: id }), { expectedVersion: 1 }),
  },
  {
    name: 'upsertSession with metadata',
    replaces: ['m', 'u'],
    run: () => store.upsertSession(U, A, id, { metadata: { n: 1 } }),
  },
  {
    name: 'upsertSession with state',
    replaces: ['s', 'u'],
    run: () => store.upsertSession(U, A, id, { state: pausedStateFixture({ sessionId: id }) }),
  },
];

const goods = ['good-1', 'good-2', 'good-3', 'good-4'];

/** Good and corrupt sessions of one pair, created in alternation (newest last). */
async function plantAll(): Promise<void> {
  const bad = corruptions.map((c) => c.id);
  const per = Math.ceil(bad.length / goods.length);
  const order = goods.flatMap((good, i) => [good, ...bad.slice(i * per, (i + 1) * per)]);
  for (const id of order) {
    await store.upsertSession(U, A, id, { state: pausedStateFixture({ sessionId: id }), metadata: { id } });
    await sleep(2);
  }
  for (const c of corruptions) await c.plant(keys.record(at(c.id)));
}

describe('RedisStorage with corrupt records beside good ones', () => {
  it('listSessions returns the good ones, names every bad one in skipped, and pages through all of them', async () => {
    openStore();
    await plantAll();
    const page = await store.listSessions(U, A, { limit: 100 });
    const unlisted = corruptions.filter((c) => !c.listed);
    expect(page.sessions.map((s) => s.sessionId).sort()).toEqual(
      [...goods, ...corruptions.filter((c) => c.listed).map((c) => c.id)].sort(),
    );
    expect(page.skipped.map((s) => s.sessionId).sort()).toEqual(unlisted.map((c) => c.id).sort());
    for (const c of unlisted) {
      const { reason } = page.skipped.find((s) => s.sessionId === c.id)!;
      expect(reason, c.id).toMatch(c.reason);
      expect(reason, c.id).toContain(`session '${c.id}'`);
    }
    expect(page.cursor).toBeNull();

    // Pages of 3: every entry exactly once, newest first, the bad ones counted in the page size.
    const seen: string[] = [];
    const skipped: string[] = [];
    let cursor: string | null = null;
    for (let pages = 0; ; pages++) {
      expect(pages).toBeLessThan(20);
      const next: Awaited<ReturnType<RedisStorage['listSessions']>> = await store.listSessions(U, A, {
        limit: 3,
        cursor,
      });
      expect(next.sessions.length + next.skipped.length).toBeLessThanOrEqual(3);
      seen.push(...next.sessions.map((s: SessionSummary) => s.sessionId));
      skipped.push(...next.skipped.map((s) => s.sessionId));
      cursor = next.cursor;
      if (cursor === null) break;
      expect(next.sessions.length + next.skipped.length).toBe(3);
    }
    expect(seen).toEqual(page.sessions.map((s) => s.sessionId));
    expect(skipped.sort()).toEqual(page.skipped.map((s) => s.sessionId).sort());
  });

  it('every read of a corrupt record is a StoreDataError naming it; writes that would keep the damage change nothing; delete clears it', async () => {
    openStore();
    await plantAll();
    for (const c of corruptions) {
      const error = await dataError(store.getSession(U, A, c.id));
      expect(error.session, c.id).toEqual(at(c.id));
      expect(error.message, c.id).toMatch(c.reason);
    }
    for (const c of corruptions)
      for (const write of writes(c.id).filter((w) => !c.field || !w.replaces.includes(c.field))) {
        const before = await snapshot();
        const error = await dataError(write.run());
        expect(error.session, `${c.id}: ${write.name}`).toEqual(at(c.id));
        expect(await snapshot(), `${c.id}: ${write.name} changed nothing`).toEqual(before);
      }
    // Deleting clears any of them, and never another session's index entry.
    for (const c of corruptions) expect(await store.deleteSession(U, A, c.id), c.id).toBe(true);
    const left = await store.listSessions(U, A);
    expect(left.skipped).toEqual([]);
    expect(left.sessions.map((s) => s.sessionId).sort()).toEqual(goods);
    expect(await admin.zcard(keys.index(U, A))).toBe(goods.length);
  });

  it('a write that replaces the broken field repairs the record', async () => {
    openStore();
    await plantAll();
    for (const c of corruptions.filter((x) => x.field)) {
      const write = writes(c.id).find((w) => w.replaces.includes(c.field as string))!;
      const saved = await write.run();
      expect(saved.version, c.id).toBe(2);
      expect(await store.getSession(U, A, c.id), c.id).toEqual(saved);
    }
    expect((await store.listSessions(U, A, { limit: 100 })).skipped.map((s) => s.sessionId).sort()).toEqual(
      corruptions
        .filter((c) => !c.field)
        .map((c) => c.id)
        .sort(),
    );
  });

  it('a record whose index member field is missing or foreign stays readable, writable, listable and deletable', async () => {
    openStore();
    await store.upsertSession(U, A, 'other');
    await sleep(2);
    await store.upsertSession(U, A, 'no-member');
    await sleep(2);
    await store.upsertSession(U, A, 'foreign');
    await admin.hdel(keys.record(at('no-member')), 'x');
    await admin.hset(
      keys.record(at('foreign')),
      'x',
      (await admin.hget(keys.record(at('other')), 'x')) as string,
    );
    for (const id of ['no-member', 'foreign']) {
      expect((await store.getSession(U, A, id))?.version).toBe(1);
      expect((await store.updateSessionState(U, A, id, pausedStateFixture({ sessionId: id }))).version).toBe(
        2,
      );
    }
    const page = await store.listSessions(U, A);
    expect(page.sessions.map((s) => s.sessionId)).toEqual(['foreign', 'no-member', 'other']);
    expect(page.skipped).toEqual([]);
    expect(await store.deleteSession(U, A, 'foreign')).toBe(true);
    expect(await store.deleteSession(U, A, 'no-member')).toBe(true);
    expect((await store.listSessions(U, A)).sessions.map((s) => s.sessionId)).toEqual(['other']);
    expect(await admin.zcard(keys.index(U, A))).toBe(1);
  });

  it('an upsert that would keep a stored state of the wrong shape is refused and writes nothing', async () => {
    openStore();
    await store.upsertSession(U, A, 's', { metadata: { n: 1 } });
    await admin.hset(keys.record(at('s')), 's', '[]');
    const before = await snapshot();
    expect((await dataError(store.upsertSession(U, A, 's', { metadata: { n: 2 } }))).message).toMatch(
      /state/,
    );
    expect(await snapshot()).toEqual(before);
  });

  it('an index entry that is not an escaped id is skipped under its raw name', async () => {
    openStore();
    await store.upsertSession(U, A, 'fine');
    const member = '0000000000000001:%ZZ';
    await admin.hset(`${keys.pairPrefix(U, A)}s:%ZZ`, {
      v: '1',
      c: new Date(1).toISOString(),
      u: new Date(1).toISOString(),
      m: '{}',
      x: member,
    });
    await admin.zadd(keys.index(U, A), 0, member);
    const page = await store.listSessions(U, A);
    expect(page.sessions.map((s) => s.sessionId)).toEqual(['fine']);
    expect(page.skipped).toEqual([{ sessionId: '%ZZ', reason: expect.stringMatching(/not an escaped id/) }]);
    // Paging past it works: its cursor is one the store accepts.
    const first = await store.listSessions(U, A, { limit: 1 });
    expect(first.sessions.map((s) => s.sessionId)).toEqual(['fine']);
    const second = await store.listSessions(U, A, { limit: 1, cursor: first.cursor });
    expect(second.skipped.map((s) => s.sessionId)).toEqual(['%ZZ']);
    expect(second.cursor).toBeNull();
  });

  it('a stale index entry (the session was created again) is pruned, not listed twice', async () => {
    openStore();
    await store.upsertSession(U, A, 'again');
    const old = (await admin.hget(keys.record(at('again')), 'x')) as string;
    await admin.del(keys.record(at('again'))); // as if it expired while the index lived on
    await sleep(2);
    await store.upsertSession(U, A, 'again');
    expect(await admin.zcard(keys.index(U, A))).toBe(2);
    const page = await store.listSessions(U, A);
    expect(page.sessions.map((s) => s.sessionId)).toEqual(['again']);
    expect(page.skipped).toEqual([]);
    expect(await admin.zscore(keys.index(U, A), old)).toBeNull();
  });
});

describe('RedisStorage with a corrupt index', () => {
  it('an index key of the wrong type fails every write with StoreDataError, leaving nothing behind; listing says so', async () => {
    openStore();
    await store.upsertSession(U, A, 'kept', { metadata: { n: 1 } });
    await admin.del(keys.index(U, A));
    await admin.set(keys.index(U, A), 'not a sorted set');
    const before = await snapshot();
    for (const write of [
      store.upsertSession(U, A, 'new', { state: pausedStateFixture({ sessionId: 'new' }) }),
      store.upsertSession(U, A, 'kept', { metadata: { n: 2 } }),
      store.updateSessionState(U, A, 'kept', pausedStateFixture({ sessionId: 'kept' })),
      store.deleteSession(U, A, 'kept'),
    ])
      expect((await dataError(write)).message).toMatch(/index of its user and agent/);
    expect(await snapshot()).toEqual(before);
    expect(await store.getSession(U, A, 'new')).toBeNull();
    const listing = await dataError(store.listSessions(U, A));
    expect(listing.message).toMatch(/wrong type \(not a sorted set\)/);
    // The way out the message gives: delete the index; the next write indexes the session again.
    await admin.del(keys.index(U, A));
    await store.updateSessionState(U, A, 'kept', pausedStateFixture({ sessionId: 'kept' }));
    expect((await store.listSessions(U, A)).sessions.map((s) => s.sessionId)).toEqual(['kept']);
  });
});

describe('RedisStorage with a corrupt lease', () => {
  const plants: Array<[string, (leaseKey: string) => Promise<unknown>]> = [
    ['wrong type', (k) => admin.set(k, 'held')],
    ['garbage token', (k) => admin.hset(k, { t: 'x', o: 'someone', e: '0' })],
    ['garbage expiry', (k) => admin.hset(k, { t: '5', o: 'someone', e: 'later' })],
    ['missing owner', (k) => admin.hset(k, { t: '5', e: '0' })],
  ];
  for (const [label, plant] of plants)
    it(`a lease hash with a ${label} makes every lease call and write of that session a StoreDataError, and changes nothing`, async () => {
      openStore();
      await store.upsertSession(U, A, 's', { metadata: { n: 1 } });
      await store.upsertSession(U, A, 'other');
      await plant(keys.lease(at('s')));
      const before = await snapshot();
      for (const call of [
        store.acquireLease(U, A, 's'),
        store.renewLease(U, A, 's', 5),
        store.releaseLease(U, A, 's', 5),
        store.getLease(U, A, 's'),
        store.upsertSession(U, A, 's', { metadata: { n: 2 } }),
        store.updateSessionState(U, A, 's', pausedStateFixture({ sessionId: 's' }), { leaseToken: 5 }),
        store.deleteSession(U, A, 's'),
      ]) {
        const error = await dataError(call);
        expect(error.session).toEqual(at('s'));
        expect(error.message).toMatch(/lease/);
      }
      expect(await snapshot()).toEqual(before);
      expect((await store.getSession(U, A, 's'))?.metadata).toEqual({ n: 1 });
      // Other sessions are not affected.
      const grant = await store.acquireLease(U, A, 'other');
      expect(
        (await store.updateSessionState(U, A, 'other', createAgentState(), { leaseToken: grant.token }))
          .version,
      ).toBe(2);
    });
});
