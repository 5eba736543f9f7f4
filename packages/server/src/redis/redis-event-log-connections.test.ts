import { type Logger, StoreConnectionError } from '@agentkit/core';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { commandsSent, type RedisProcess, startRedisServer } from '@agentkit/test-redis';
import type { LogEvent } from '../event-log';
import { EventLogKeys } from './event-log-keys';
import { RedisEventLog } from './redis-event-log';
import type { RedisEventLogOptions } from './redis-event-log-options';

// A Redis of its own: these tests kill connections, count them and watch every command.
let server: RedisProcess;
let admin: Redis;
const logs: RedisEventLog[] = [];
const silent: Logger = { warn: () => {}, error: () => {} };
const event: LogEvent = { type: 'TEXT_BLOCK_DELTA', replyId: 'r', blockId: 'b', delta: 'x' };
const session = { userId: 'u', agentId: 'a', sessionId: 's' };
const never = new AbortController().signal;

beforeAll(async () => {
  server = await startRedisServer();
  admin = new Redis({ port: server.port });
}, 30_000);
afterEach(async () => {
  await Promise.all(logs.splice(0).map((log) => log.close()));
});
afterAll(async () => {
  admin?.disconnect();
  await server?.dispose();
});

function open(options: RedisEventLogOptions = {}): RedisEventLog {
  const log = new RedisEventLog({ port: server.port, logger: silent, ...options });
  logs.push(log);
  return log;
}

/** Tracks when a promise resolved. */
function track(promise: Promise<unknown>): { readonly at: number } {
  const state = { at: 0 };
  promise.then(() => {
    state.at = Date.now();
  });
  return state;
}

async function until(
  check: () => Promise<boolean> | boolean,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** How many of the channels have a subscriber (`PUBSUB NUMSUB`: channel, count, channel, count, …). */
async function subscribers(...channels: string[]): Promise<number> {
  const reply = (await admin.pubsub('NUMSUB', ...channels)) as unknown[];
  return reply.filter((count, i) => i % 2 === 1 && Number(count) > 0).length;
}

describe('RedisEventLog safety re-checks', () => {
  it('a follower whose pub/sub connection was killed still wakes, through the re-check after it reconnects', async () => {
    const keyPrefix = 'killed';
    const follower = open({ keyPrefix, recheckIntervalMs: 1000 });
    const writer = open({ keyPrefix });
    const channel = new EventLogKeys(keyPrefix).wakeChannel(session);
    const [first] = await writer.append(session, [event]);
    const woke = track(follower.waitFor(session, first!, 60_000, never));
    await until(async () => (await subscribers(channel)) === 1, 'subscribed');
    await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
    // The wake-up of this append goes nowhere: nobody is subscribed.
    expect(await subscribers(channel)).toBe(0);
    const appendedAt = Date.now();
    await writer.append(session, [event]);
    await until(() => woke.at > 0, 'woken', 10_000);
    // Within the re-check interval (plus room for a loaded machine).
    expect(woke.at - appendedAt).toBeLessThan(1000 + 1500);
    // And it is subscribed again: the next append wakes a follower through pub/sub.
    await until(async () => (await subscribers(channel)) === 1, 'subscribed again');
    const next = track(follower.waitFor(session, (await writer.lastId(session))!, 60_000, never));
    await new Promise((r) => setTimeout(r, 100));
    await writer.append(session, [event]);
    await until(() => next.at > 0, 'woken through pub/sub again', 5000);
  }, 30_000);

  it('the safety timer wakes a follower when an entry arrives without a wake-up message', async () => {
    const keyPrefix = 'timer';
    const keys = new EventLogKeys(keyPrefix);
    const [fast, slow] = [
      open({ keyPrefix, recheckIntervalMs: 500 }),
      open({ keyPrefix, recheckIntervalMs: 60_000 }),
    ];
    const [first] = await fast.append(session, [event]);
    const viaTimer = track(fast.waitFor(session, first!, 60_000, never));
    const withoutTimer = track(slow.waitFor(session, first!, 60_000, never));
    await until(
      async () => Number(((await admin.pubsub('NUMSUB', keys.wakeChannel(session))) as unknown[])[1]) === 2,
      'both subscribed',
    );
    await new Promise((r) => setTimeout(r, 200));
    // As if the wake-up message were lost: an entry added without one.
    const addedAt = Date.now();
    await admin.xadd(keys.stream(session), '*', 'e', JSON.stringify(event));
    await until(() => viaTimer.at > 0, 'woken by the timer', 5000);
    expect(viaTimer.at - addedAt).toBeLessThan(500 + 1500);
    await new Promise((r) => setTimeout(r, 1000));
    expect(withoutTimer.at, 'no message, no timer: still waiting').toBe(0);
  }, 30_000);
});

describe('RedisEventLog connections', () => {
  it('1,000 concurrent waitFor calls on one instance use two connections: commands and pub/sub', async () => {
    const connectionName = `evlog-${process.pid}`;
    const keyPrefix = 'many';
    const log = open({ keyPrefix, redisOptions: { connectionName } });
    const writer = open({ keyPrefix });
    const key = (i: number) => ({ userId: `user-${i % 10}`, agentId: 'agent', sessionId: `session-${i}` });
    const waits = Array.from({ length: 1000 }, (_, i) =>
      track(log.waitFor(key(i % 900), null, 60_000, never)),
    );
    const channels = Array.from({ length: 900 }, (_, i) => new EventLogKeys(keyPrefix).wakeChannel(key(i)));
    await until(async () => (await subscribers(...channels)) === 900, 'all 900 sessions subscribed', 30_000);
    const names = async () =>
      String(await admin.client('LIST'))
        .split('\n')
        .map((line) => /name=(\S+)/.exec(line)?.[1] ?? '')
        .filter((name) => name.startsWith(connectionName))
        .sort();
    // Every follower has made its first check (through the command connection) by now or soon.
    await until(async () => (await names()).length >= 2, 'both connections');
    await new Promise((r) => setTimeout(r, 300));
    expect(await names()).toEqual([connectionName, `${connectionName}:pubsub`]);
    // The followers of the sessions written to wake (two of session-0: i = 0 and i = 900); the others wait.
    await writer.append(key(0), [event]);
    await writer.append(key(1), [event]);
    await until(
      () => waits[0]!.at > 0 && waits[900]!.at > 0 && waits[1]!.at > 0,
      'followers of written sessions',
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(waits.filter((w) => w.at > 0).length).toBe(4);
    await log.close();
    await until(() => waits.every((w) => w.at > 0), 'every follower after close');
    expect(String(await admin.client('LIST')).includes(` name=${connectionName}`)).toBe(false);
  }, 60_000);

  it('uses one command per append, whatever the number of events', async () => {
    const log = open({ keyPrefix: 'round-trips' });
    await log.append(session, [event]);
    const seen = await commandsSent(server.port, async () => {
      await log.append(
        session,
        Array.from({ length: 50 }, () => event),
      );
      await log.append(session, [event]);
    });
    expect(seen).toEqual(['evalsha', 'evalsha']);
  });

  it('fails fast with StoreConnectionError while Redis is down, lets waitFor time out, and works again after', async () => {
    const own = await startRedisServer();
    const { port } = own;
    const log = open({ port, keyPrefix: 'down', recheckIntervalMs: 200 });
    try {
      const [first] = await log.append(session, [event]);
      await own.kill();
      const started = Date.now();
      for (const [name, op] of [
        ['append', () => log.append(session, [event])],
        ['read', () => log.read(session, null, 10)],
        ['readBackward', () => log.readBackward(session, null, 10)],
        ['lastId', () => log.lastId(session)],
        ['delete', () => log.delete(session)],
        ['publishInterrupt', () => log.publishInterrupt(session)],
      ] as const) {
        const error = await op().catch((e: unknown) => e);
        expect(error, name).toBeInstanceOf(StoreConnectionError);
        expect((error as Error).message).toMatch(new RegExp(`^Redis ${name} failed: `));
      }
      expect(Date.now() - started).toBeLessThan(2000);
      // waitFor never rejects: it waits out its timeout.
      const waitStarted = Date.now();
      await log.waitFor(session, first!, 300, never);
      expect(Date.now() - waitStarted, 'waitFor waited for its timeout').toBeGreaterThanOrEqual(250);
      // A follower waiting while Redis is down wakes once Redis is back and the session has news.
      const woke = track(log.waitFor(session, first!, 60_000, never));
      await own.restart();
      const writer = open({ port, keyPrefix: 'down' });
      await writer.append(session, [event]);
      await until(() => woke.at > 0, 'follower after Redis came back', 15_000);
      // The pub/sub connection that woke the follower may be back before the log's command client,
      // which reconnects on its own backoff (up to 2 s between attempts).
      await until(
        async () => (await log.lastId(session).catch(() => null)) !== null,
        'commands work again after Redis came back',
        15_000,
      );
    } finally {
      await own.dispose();
    }
  }, 30_000);

  it('close() releases both connections and later calls fail with StoreConnectionError', async () => {
    const connectionName = `evlog-close-${process.pid}`;
    const log = open({ keyPrefix: 'close', redisOptions: { connectionName } });
    await log.append(session, [event]);
    await log.waitFor(session, null, 60_000, never);
    const names = async () =>
      String(await admin.client('LIST'))
        .split('\n')
        .filter((line) => line.includes(` name=${connectionName}`)).length;
    await until(async () => (await names()) === 2, 'commands and pub/sub connected');
    await log.close();
    await until(async () => (await names()) === 0, 'connections closed');
    await expect(log.read(session, null, 1)).rejects.toBeInstanceOf(StoreConnectionError);
    await log.waitFor(session, null, 60_000, never); // resolves at once
  });

  it('never closes a client it was given, and opens its pub/sub connection from it', async () => {
    const client = new Redis({ port: server.port, connectionName: `given-${process.pid}` });
    try {
      const log = new RedisEventLog({ client, keyPrefix: 'given' });
      await log.append(session, [event]);
      await log.waitFor(session, null, 60_000, never);
      const woke = track(log.waitFor(session, (await log.lastId(session))!, 60_000, never));
      await new Promise((r) => setTimeout(r, 200));
      await log.append(session, [event]);
      await until(() => woke.at > 0, 'woken');
      expect(String(await admin.client('LIST'))).toContain(`name=given-${process.pid}:pubsub`);
      await log.close();
      expect(client.status).toBe('ready');
      expect(await client.ping()).toBe('PONG');
    } finally {
      client.disconnect();
    }
  });

  it('works with a client that has its own ioredis keyPrefix (keys prefixed, channels not)', async () => {
    const client = new Redis({ port: server.port, keyPrefix: 'app1:' });
    const other = new Redis({ port: server.port, keyPrefix: 'app1:' });
    try {
      const options = { keyPrefix: 'kp', recheckIntervalMs: 60_000, logger: silent };
      const follower = new RedisEventLog({ client, ...options });
      const writer = new RedisEventLog({ client: other, ...options });
      logs.push(follower, writer);
      const [first] = await writer.append(session, [event]);
      expect(await admin.exists(`app1:${new EventLogKeys('kp').stream(session)}`)).toBe(1);
      const woke = track(follower.waitFor(session, first!, 60_000, never));
      await until(
        async () => (await subscribers(new EventLogKeys('kp').wakeChannel(session))) === 1,
        'subscribed',
      );
      await new Promise((r) => setTimeout(r, 100));
      await writer.append(session, [event]);
      await until(() => woke.at > 0, 'woken through pub/sub', 5000);
      expect((await follower.read(session, first!, 10)).length).toBe(1);
    } finally {
      client.disconnect();
      other.disconnect();
    }
  });
});
