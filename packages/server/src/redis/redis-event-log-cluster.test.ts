import type { Logger } from '@agentkit/core';
import { Cluster } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  type RedisCluster,
  deleteByPrefix,
  keysByPrefix,
  startRedisCluster,
  uniquePrefix,
} from '@agentkit/test-redis';
import { eventLogConformanceCases } from '../testing';
import { EventLogKeys } from './event-log-keys';
import { RedisEventLog } from './redis-event-log';

const silent: Logger = { warn: () => {}, error: () => {} };
let cluster: RedisCluster;
let client: Cluster;
/** Every key this file writes starts with it. */
const root = uniquePrefix('event-log-cluster');
const prefixes: string[] = [];
const logs: RedisEventLog[] = [];
const others: Cluster[] = [];

beforeAll(async () => {
  cluster = await startRedisCluster(3);
  client = await cluster.connect();
}, 60_000);

afterEach(async () => {
  await Promise.all(logs.splice(0).map((log) => log.close()));
  await Promise.all(others.splice(0).map((other) => other.quit()));
  for (const prefix of prefixes.splice(0)) await deleteByPrefix(client, prefix);
});

afterAll(async () => {
  try {
    if (client) expect(await keysByPrefix(client, root)).toEqual([]);
  } finally {
    await client?.quit();
    await cluster?.dispose();
  }
});

function open(label: string, options: { client?: Cluster } = {}): { log: RedisEventLog; keys: EventLogKeys } {
  const keyPrefix = `${root}:${label}:${prefixes.length}`;
  prefixes.push(keyPrefix);
  const log = new RedisEventLog({ client: options.client ?? client, keyPrefix, logger: silent });
  logs.push(log);
  return { log, keys: new EventLogKeys(keyPrefix) };
}

/** A log on the prefix of the last `open`, as another process would have: a cluster client of its own. */
async function openFollower(recheckIntervalMs: number): Promise<RedisEventLog> {
  const other = await cluster.connect();
  others.push(other);
  const follower = new RedisEventLog({
    client: other,
    keyPrefix: prefixes.at(-1)!,
    logger: silent,
    recheckIntervalMs,
  });
  logs.push(follower);
  return follower;
}

/** How many sharded subscribers `channel` has on each master. */
function shardSubscribers(channel: string): Promise<number[]> {
  return Promise.all(
    client
      .nodes('master')
      .map(async (m) => Number(((await m.call('PUBSUB', 'SHARDNUMSUB', channel)) as unknown[])[1])),
  );
}

describe('RedisEventLog conformance (Redis Cluster, 3 masters)', () => {
  const factory = async ({ maxEntriesPerSession }: { maxEntriesPerSession?: number }) => {
    const keyPrefix = `${root}:conformance:${Math.random().toString(36).slice(2)}`;
    const others: Cluster[] = [];
    const options = { keyPrefix, logger: silent, recheckIntervalMs: 60_000, maxEntriesPerSession };
    return {
      log: new RedisEventLog({ ...options, client }),
      // Another process: its own cluster client.
      openAnother: async () => {
        const other = await cluster.connect();
        others.push(other);
        return new RedisEventLog({ ...options, client: other });
      },
      cleanup: async () => {
        await Promise.all(others.map((c) => c.quit()));
        await deleteByPrefix(client, keyPrefix);
      },
    };
  };
  for (const c of eventLogConformanceCases(factory)) it(c.name, c.run, 30_000);
});

describe('RedisEventLog on Redis Cluster', () => {
  it('keeps a session’s stream and wake-up channel in the slot of its user–agent pair, spreading pairs over the masters', async () => {
    const { log, keys } = open('slots');
    const slots = new Set<number>();
    for (let i = 0; i < 12; i++) {
      const session = { userId: `user:{${i}}`, agentId: 'agent', sessionId: 's*1' };
      await log.append(session, [{ type: 'USER_INTERRUPT' }]);
      const streamSlot = Number(await client.cluster('KEYSLOT', keys.stream(session)));
      expect(Number(await client.cluster('KEYSLOT', keys.wakeChannel(session)))).toBe(streamSlot);
      slots.add(streamSlot);
      expect((await log.read(session, null, 10)).map((e) => e.event)).toEqual([{ type: 'USER_INTERRUPT' }]);
    }
    expect(slots.size).toBeGreaterThan(1);
    expect((await cluster.keysPerMaster()).filter((keys) => keys > 0).length).toBeGreaterThan(1);
  });

  it('wakes followers through sharded pub/sub: the channel is subscribed on the node of the stream only', async () => {
    const { log, keys } = open('sharded');
    const follower = await openFollower(60_000);
    const session = { userId: 'u', agentId: 'a', sessionId: 's' };
    const [id] = await log.append(session, [{ type: 'USER_INTERRUPT' }]);
    const controller = new AbortController();
    const waiting = follower.waitFor(session, id!, 60_000, controller.signal);
    const channel = keys.wakeChannel(session);
    const slot = Number(await client.cluster('KEYSLOT', channel));
    const owner = client.slots[slot]![0]!;
    const masters = client.nodes('master');
    // Wait for the subscription, then check where it is.
    let counts: number[] = [];
    const deadline = Date.now() + 10_000;
    do {
      counts = await shardSubscribers(channel);
      if (counts.some((c) => c > 0)) break;
      await new Promise((r) => setTimeout(r, 50));
    } while (Date.now() < deadline);
    const ownerIndex = masters.findIndex((m) => `${m.options.host}:${m.options.port}` === owner);
    expect(counts.map((c, i) => (i === ownerIndex ? c > 0 : c === 0))).toEqual([true, true, true]);
    const started = Date.now();
    await log.append(session, [{ type: 'USER_INTERRUPT' }]);
    await waiting;
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('works with cluster clients that have their own ioredis keyPrefix (keys prefixed, channels not)', async () => {
    const [a, b] = [0, 1].map(
      () =>
        new Cluster(cluster.nodes, {
          keyPrefix: `${root}:client:`,
          enableOfflineQueue: true,
          redisOptions: { maxRetriesPerRequest: 0 },
        }),
    ) as [Cluster, Cluster];
    prefixes.push(`${root}:client:`);
    try {
      const options = { keyPrefix: 'kp', recheckIntervalMs: 60_000, logger: silent };
      const follower = new RedisEventLog({ client: a, ...options });
      const writer = new RedisEventLog({ client: b, ...options });
      logs.push(follower, writer);
      const session = { userId: 'u', agentId: 'a', sessionId: 's' };
      const [first] = await writer.append(session, [{ type: 'USER_INTERRUPT' }]);
      expect(await client.exists(`${root}:client:${new EventLogKeys('kp').stream(session)}`)).toBe(1);
      let woke = false;
      const waiting = follower.waitFor(session, first!, 60_000, new AbortController().signal).then(() => {
        woke = true;
      });
      await new Promise((r) => setTimeout(r, 1000));
      expect(woke).toBe(false);
      await writer.append(session, [{ type: 'USER_INTERRUPT' }]);
      await Promise.race([waiting, new Promise((r) => setTimeout(r, 5000))]);
      expect(woke, 'woken through sharded pub/sub').toBe(true);
    } finally {
      await Promise.all([a.quit(), b.quit()]);
    }
  });

  it('a follower whose pub/sub connections were killed still wakes, and its subscription comes back', async () => {
    const { log, keys } = open('killed');
    const follower = await openFollower(1000);
    const session = { userId: 'u', agentId: 'a', sessionId: 'killed' };
    const channel = keys.wakeChannel(session);
    const subscribed = async () => (await shardSubscribers(channel)).reduce((a, b) => a + b, 0);
    const until = async (check: () => Promise<boolean> | boolean, what: string) => {
      const deadline = Date.now() + 15_000;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`${what}: not within 15 s`);
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    const [first] = await log.append(session, [{ type: 'USER_INTERRUPT' }]);
    let wokeAt = 0;
    void follower.waitFor(session, first!, 60_000, new AbortController().signal).then(() => {
      wokeAt = Date.now();
    });
    await until(async () => (await subscribed()) === 1, 'subscribed');
    await Promise.all(client.nodes('master').map((m) => m.call('CLIENT', 'KILL', 'TYPE', 'pubsub')));
    expect(await subscribed()).toBe(0);
    const appendedAt = Date.now();
    await log.append(session, [{ type: 'USER_INTERRUPT' }]);
    await until(() => wokeAt > 0, 'woken');
    expect(wokeAt - appendedAt).toBeLessThan(1000 + 2000);
    await until(async () => (await subscribed()) === 1, 'subscribed again');
    let again = 0;
    void follower
      .waitFor(session, (await log.lastId(session))!, 60_000, new AbortController().signal)
      .then(() => {
        again = Date.now();
      });
    await new Promise((r) => setTimeout(r, 300));
    const secondAt = Date.now();
    await log.append(session, [{ type: 'USER_INTERRUPT' }]);
    await until(() => again > 0, 'woken again');
    expect(again - secondAt).toBeLessThan(1000 + 2000);
  }, 60_000);
});
