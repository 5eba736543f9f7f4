import { ConfigError, type Logger, StoreDataError } from '@agentkit/core';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL, deleteByPrefix, keysByPrefix, uniquePrefix } from '@agentkit/test-redis';
import { eventLogConformanceCases } from '../testing';
import { EventLogKeys } from './event-log-keys';
import { RedisEventLog } from './redis-event-log';

const silent: Logger = { warn: () => {}, error: () => {} };
const session = { userId: 'u', agentId: 'a', sessionId: 's' };
let admin: Redis;

beforeAll(async () => {
  admin = new Redis(REDIS_URL);
});
afterAll(async () => {
  await admin.quit();
});

describe('RedisEventLog conformance (single node)', () => {
  const factory = async ({ maxEntriesPerSession }: { maxEntriesPerSession?: number }) => {
    const keyPrefix = uniquePrefix('event-log');
    // A long safety interval: the cases' wake-ups must come through pub/sub.
    const options = {
      url: REDIS_URL,
      keyPrefix,
      logger: silent,
      recheckIntervalMs: 60_000,
      maxEntriesPerSession,
    };
    return {
      log: new RedisEventLog(options),
      openAnother: async () => new RedisEventLog(options),
      cleanup: async () => {
        await deleteByPrefix(admin, keyPrefix);
      },
    };
  };
  for (const c of eventLogConformanceCases(factory)) it(c.name, c.run, 30_000);
});

describe('RedisEventLog storage', () => {
  const event = { type: 'TEXT_BLOCK_DELTA', replyId: 'r', blockId: 'b', delta: 'x' } as const;
  const logs: RedisEventLog[] = [];
  const prefixes: string[] = [];
  const warnings: string[] = [];
  const recording: Logger = { warn: (message) => warnings.push(message), error: () => {} };

  function open(options: ConstructorParameters<typeof RedisEventLog>[0] = {}) {
    const keyPrefix = uniquePrefix('event-log-storage');
    prefixes.push(keyPrefix);
    const log = new RedisEventLog({ url: REDIS_URL, keyPrefix, logger: recording, ...options });
    logs.push(log);
    return { log, keys: new EventLogKeys(keyPrefix), keyPrefix };
  }

  afterEach(async () => {
    await Promise.all(logs.splice(0).map((log) => log.close()));
    for (const prefix of prefixes.splice(0)) {
      await deleteByPrefix(admin, prefix);
      expect(await keysByPrefix(admin, prefix)).toEqual([]);
    }
    warnings.length = 0;
  });

  it('keeps a session’s log in one stream under the pair’s hash tag, the event as JSON in field e, with a TTL', async () => {
    const { log, keys } = open({ ttlSeconds: 3600 });
    const session = { userId: 'u:1', agentId: 'a{1}', sessionId: 's*1' };
    const ids = await log.append(session, [event, { type: 'USER_INTERRUPT' }]);
    expect(keys.stream(session)).toMatch(/^[^{]*:\{u%3A1:a%7B1%7D\}:events:s%2A1$/);
    expect(keys.wakeChannel(session)).toMatch(/^[^{]*:\{u%3A1:a%7B1%7D\}:wake:s%2A1$/);
    expect(await admin.xrange(keys.stream(session), '-', '+')).toEqual([
      [ids[0], ['e', JSON.stringify(event)]],
      [ids[1], ['e', '{"type":"USER_INTERRUPT"}']],
    ]);
    const ttl = await admin.ttl(keys.stream(session));
    expect(ttl).toBeGreaterThan(3500);
    expect(ttl).toBeLessThanOrEqual(3600);
    await admin.expire(keys.stream(session), 10);
    await log.append(session, [event]);
    expect(await admin.ttl(keys.stream(session)), 'each append sets the TTL again').toBeGreaterThan(3500);
  });

  it('expires a session’s log ttlSeconds after its last append', async () => {
    const { log } = open({ ttlSeconds: 1 });
    await log.append(session, [event]);
    expect(await log.lastId(session)).not.toBeNull();
    await new Promise((r) => setTimeout(r, 2200));
    expect(await log.lastId(session)).toBeNull();
  });

  it('skips corrupt entries with one warning each, in every read, and followers do not wake for them', async () => {
    const { log, keys } = open({ recheckIntervalMs: 100 });
    const stream = keys.stream(session);
    const [good1] = await log.append(session, [event]);
    const bad1 = await admin.xadd(stream, '*', 'e', '{not json');
    const bad2 = await admin.xadd(stream, '*', 'other', '{"type":"X"}');
    const bad3 = await admin.xadd(stream, '*', 'e', '[1,2]');
    const [good2] = await log.append(session, [{ type: 'USER_INTERRUPT' }]);
    const bad4 = await admin.xadd(stream, '*', 'e', '{"type":5}');
    const bad5 = await admin.xadd(stream, '*', 'e', 'null');

    expect(await log.read(session, null, 10)).toMatchObject([
      { id: good1, event },
      { id: good2, event: { type: 'USER_INTERRUPT' } },
    ]);
    // A page of corrupt entries does not end a read early.
    expect((await log.read(session, good1!, 1)).map((e) => e.id)).toEqual([good2]);
    expect((await log.readBackward(session, null, 1)).map((e) => e.id)).toEqual([good2]);
    expect((await log.readBackward(session, good2!, 5)).map((e) => e.id)).toEqual([good1]);
    expect(await log.read(session, good2!, 10)).toEqual([]);
    // lastId is the newest entry a reader gets; a follower there waits (no wake for the corrupt tail).
    expect(await log.lastId(session)).toBe(good2);
    const started = Date.now();
    await log.waitFor(session, good2!, 600, new AbortController().signal);
    expect(Date.now() - started).toBeGreaterThanOrEqual(550);
    await log.waitFor(session, bad1!, 60_000, new AbortController().signal); // good2 comes after it: at once

    expect(warnings).toHaveLength(5);
    for (const id of [bad1, bad2, bad3, bad4, bad5])
      expect(warnings.some((w) => w.includes(`entry ${id} `) && w.includes("session 's'"))).toBe(true);
  });

  it('a session key holding another Redis type is reported as StoreDataError', async () => {
    const { log, keys } = open();
    await admin.set(keys.stream(session), 'not a stream');
    for (const op of [
      () => log.append(session, [event]),
      () => log.read(session, null, 10),
      () => log.readBackward(session, null, 10),
      () => log.lastId(session),
    ])
      await expect(op()).rejects.toBeInstanceOf(StoreDataError);
    await log.delete(session);
    await log.append(session, [event]);
  });

  it('refuses invalid options with ConfigError', () => {
    for (const options of [
      { keyPrefix: 'a{b' },
      { keyPrefix: 'a}' },
      { maxEntriesPerSession: 0 },
      { maxEntriesPerSession: 1.5 },
      { ttlSeconds: -1 },
      { connectTimeoutMs: Number.NaN },
      { commandTimeoutMs: 0 },
      { recheckIntervalMs: Number.POSITIVE_INFINITY },
    ])
      expect(
        () => new RedisEventLog({ url: REDIS_URL, ...options } as never),
        JSON.stringify(options),
      ).toThrow(ConfigError);
  });
});
