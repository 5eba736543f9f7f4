import { VersionConflictError } from '@agentkit/core';
import { sessionStoreConformanceCases } from '@agentkit/core/testing';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisCluster, startRedisCluster, uniquePrefix } from '../test/redis-server';
import { RedisKeys } from './redis-keys';
import { RedisStorage } from './redis-storage';

let cluster: RedisCluster;
let client: Cluster;

function newClusterClient(): Cluster {
  return new Cluster(cluster.nodes, { enableOfflineQueue: true, redisOptions: { maxRetriesPerRequest: 0 } });
}

beforeAll(async () => {
  cluster = await startRedisCluster(3);
  client = newClusterClient();
  await new Promise<void>((resolve, reject) => {
    client.once('ready', resolve);
    client.once('error', reject);
  });
}, 60_000);

afterAll(async () => {
  await client?.quit();
  await cluster?.dispose();
});

describe('RedisStorage conformance (Redis Cluster, 3 masters)', () => {
  const factory = async () => ({ store: new RedisStorage({ client, keyPrefix: uniquePrefix('cluster') }) });
  for (const c of sessionStoreConformanceCases(factory)) it(c.name, c.run);
});

describe('RedisStorage on Redis Cluster', () => {
  it('spreads user–agent pairs over the masters, keeping each pair’s keys in one slot', async () => {
    const prefix = uniquePrefix('slots');
    const keys = new RedisKeys(prefix);
    const store = new RedisStorage({ client, keyPrefix: prefix });
    const slots = new Set<number>();
    for (let i = 0; i < 12; i++) {
      const userId = `user:{${i}}`;
      await store.upsertSession(userId, 'agent', 's1');
      await store.upsertSession(userId, 'agent', 's2');
      const pairSlots = new Set(
        await Promise.all(
          [
            keys.index(userId, 'agent'),
            ...['s1', 's2'].map((s) => keys.record({ userId, agentId: 'agent', sessionId: s })),
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
    const masters = cluster.nodes.map((n) => new Redis(n));
    try {
      const counts = await Promise.all(masters.map((m) => m.dbsize()));
      expect(counts.filter((c) => c > 0).length).toBeGreaterThan(1);
    } finally {
      for (const m of masters) m.disconnect();
    }
  });

  it('two cluster clients writing concurrently: exactly one wins', async () => {
    const prefix = uniquePrefix('cluster-race');
    const other = newClusterClient();
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
