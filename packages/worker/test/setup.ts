/**
 * Builds a test's pieces in one process: the store, the event log, a server with a `QueueRunner`, and
 * workers. Child processes (worker-process.ts, api-process.ts) build theirs with the same functions.
 */
import type { SessionStore } from '@agentkit/core';
import { createAgentServer } from '@agentkit/server';
import { serveAgentServer } from '@agentkit/server/node';
import { RedisEventLog } from '@agentkit/server/redis';
import { RedisStorage } from '@agentkit/storage-redis';
import { Redis } from 'ioredis';
import { QueueRunner, type QueueRunnerOptions } from '../src/queue-runner';
import { type ReplyWorker, startWorker } from '../src/start-worker';
import type { StartWorkerOptions } from '../src/start-worker-options';
import { REDIS_URL } from '@agentkit/test-redis';
import { keysOf, silent, type WorldConfig, worldAgents } from './world';

/** Options every test process uses, fast enough for tests: takeover within about 3 s. */
export const FAST = { leaseTtlMs: 2000, lockDurationMs: 2000, stalledIntervalMs: 1000 } as const;

/** The store and the event log of a test's world. */
export function openShared(config: WorldConfig) {
  const keys = keysOf(config);
  const store: SessionStore = new RedisStorage({ url: REDIS_URL, keyPrefix: keys.store });
  const eventLog = new RedisEventLog({ url: REDIS_URL, keyPrefix: keys.log, logger: silent });
  const book = new Redis(REDIS_URL);
  return {
    store,
    eventLog,
    book,
    async close() {
      await eventLog.close();
      await (store as RedisStorage).close();
      book.disconnect();
    },
  };
}

/** A worker of the world. */
export function worldWorker(
  config: WorldConfig,
  shared: ReturnType<typeof openShared>,
  options: Partial<StartWorkerOptions> = {},
): ReplyWorker {
  const keys = keysOf(config);
  return startWorker({
    agents: worldAgents(shared.book, config),
    store: shared.store,
    eventLog: shared.eventLog,
    connection: { url: REDIS_URL },
    prefix: keys.bull,
    keyPrefix: keys.lines,
    logger: silent,
    ...FAST,
    ...options,
  });
}

/** A server on loopback with a `QueueRunner` (users authenticate as `Bearer <user>`). */
export async function worldServer(
  config: WorldConfig,
  shared: ReturnType<typeof openShared>,
  options: Partial<QueueRunnerOptions> = {},
) {
  const keys = keysOf(config);
  const runner = new QueueRunner({
    connection: { url: REDIS_URL },
    store: shared.store,
    eventLog: shared.eventLog,
    prefix: keys.bull,
    keyPrefix: keys.lines,
    backoff: { type: 'fixed', delay: 200 },
    ...options,
  });
  const app = createAgentServer({
    agents: worldAgents(shared.book, config),
    store: shared.store,
    eventLog: shared.eventLog,
    runner,
    authenticate: (c) => c.req.header('Authorization')?.replace(/^Bearer /, '') || null,
    logger: silent,
    limits: { maxRunningRepliesPerUser: 1000 },
  });
  const served = await serveAgentServer(app, { port: 0, handleSignals: false });
  return { ...served, runner };
}
