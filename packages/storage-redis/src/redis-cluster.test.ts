import { VersionConflictError, createAgentState } from '@agentkit/core';
import { sessionStoreConformanceCases } from '@agentkit/core/testing';
import type { Cluster } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type RedisCluster,
  deleteByPrefix,
  keysByPrefix,
  startRedisCluster,
  uniquePrefix,
} from '@agentkit/test-redis';
import { RedisKeys } from './redis-keys';
import { RedisStorage } from './redis-storage';

let cluster: RedisCluster;
let client: Cluster;
/** Every key this file writes starts with it. */
const root = uniquePrefix('cluster');
const prefixes: string[] = [];

/** A key prefix of its own for one test, deleted after the test. */
function prefixFor(label: string): string {
  const prefix = `${root}:${label}:${prefixes.length}`;
  prefixes.push(prefix);
  return prefix;
}

beforeAll(async () => {
  cluster = await startRedisCluster(3);
  client = await cluster.connect();
}, 60_000);

afterEach(async () => {
  for (const prefix of prefixes.splice(0)) await deleteByPrefix(client, prefix);
});

afterAll(async () => {
  try {
    // The tests cleaned up after themselves: no key of this file is left on any master.
    if (client) expect(await keysByPrefix(client, root)).toEqual([]);
  } finally {
    await client?.quit();
    await cluster?.dispose();
  }
});

describe('RedisStorage conformance (Redis Cluster, 3 masters)', () => {
  const factory = async () => {
    const keyPrefix = `${root}:conformance:${Math.random().toString(36).slice(2)}`;
    return {
      store: new RedisStorage({ client, keyPrefix }),
      cleanup: () => deleteByPrefix(client, keyPrefix),
    };
  };
  for (const c of sessionStoreConformanceCases(factory)) it(c.name, c.run);
});

describe('RedisStorage on Redis Cluster', () => {
  it('spreads user–agent pairs over the masters, keeping each pair’s keys (leases included) in one slot', async () => {
    const prefix = prefixFor('slots');
    const keys = new RedisKeys(prefix);
    const store = new RedisStorage({ client, keyPrefix: prefix });
    const slots = new Set<number>();
    for (let i = 0; i < 12; i++) {
      const userId = `user:{${i}}`;
      await store.upsertSession(userId, 'agent', 's1');
      await store.upsertSession(userId, 'agent', 's2');
      const { token } = await store.acquireLease(userId, 'agent', 's1');
      await store.updateSessionState(userId, 'agent', 's1', createAgentState(), { leaseToken: token });
      await store.acquireLease(userId, 'agent', 's2');
      const pairSlots = new Set(
        await Promise.all(
          [
            keys.index(userId, 'agent'),
            ...['s1', 's2'].map((s) => keys.record({ userId, agentId: 'agent', sessionId: s })),
            ...['s1', 's2'].map((s) => keys.lease({ userId, agentId: 'agent', sessionId: s })),
          ].map(async (k) => Number(await client.cluster('KEYSLOT', k))),
        ),
      );
      expect(pairSlots.size).toBe(1);
      slots.add([...pairSlots][0] as number);
      expect((await store.listSessions(userId, 'agent')).sessions.map((s) => s.sessionId)).toEqual([
        's2',
        's1',
      ]);
    }
    expect(slots.size).toBeGreaterThan(1);
    expect((await cluster.keysPerMaster()).filter((keys) => keys > 0).length).toBeGreaterThan(1);
  });

  it('two cluster clients writing concurrently: exactly one wins', async () => {
    const prefix = prefixFor('race');
    const other = await cluster.connect();
    try {
      const a = new RedisStorage({ client, keyPrefix: prefix });
      const b = new RedisStorage({ client: other, keyPrefix: prefix });
      const created = await a.upsertSession('u', 'a', 's');
      const results = await Promise.allSettled([
        a.upsertSession('u', 'a', 's', { metadata: { by: 'a' }, expectedVersion: created.version }),
        b.upsertSession('u', 'a', 's', { metadata: { by: 'b' }, expectedVersion: created.version }),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(rejected.reason).toBeInstanceOf(VersionConflictError);
      expect((await b.getSession('u', 'a', 's'))?.version).toBe(2);
    } finally {
      await other.quit();
    }
  });
});
