import type { Logger } from '@agentkit/core';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { REDIS_URL, deleteByPrefix, keysByPrefix, uniquePrefix } from '../../test/redis-server';
import { eventLogConformanceCases } from '../testing';
import { RedisEventLog } from './redis-event-log';

const silent: Logger = { warn: () => {}, error: () => {} };
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
