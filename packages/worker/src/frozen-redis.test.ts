import { replayEvents } from '@agentkit/core';
import { RedisEventLog } from '@agentkit/server/redis';
import { agentEvents } from '@agentkit/server/testing';
import { RedisStorage } from '@agentkit/storage-redis';
import { deleteByPrefix, REDIS_URL, startRedisServer, uniquePrefix } from '@agentkit/test-redis';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { FAST } from '../test/setup';
import { keysOf, silent, type WorldConfig, worldAgents } from '../test/world';
import { QueueRunner } from './queue-runner';
import { startWorker } from './start-worker';

// What freezes (SIGSTOP, 5 s, then thaws): the one Redis of everything, or only the store's (the queue and
// the event log on the shared server keep answering).
const cases = [
  ['workers whose Redis freezes (SIGSTOP) and thaws', 'everything'],
  ['workers whose store Redis alone freezes', 'store'],
] as const;

describe.each(cases)('%s', (_, frozen) => {
  it('no crash, no unhandled rejection, no session run twice at once, every deploy at most once', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    const server = await startRedisServer();
    const url = `redis://127.0.0.1:${server.port}`;
    const queueUrl = frozen === 'everything' ? url : REDIS_URL;
    const config: WorldConfig = { prefix: uniquePrefix('frozen'), modelMs: [150, 250], deployMs: 200 };
    const keys = keysOf(config);
    const book = new Redis(REDIS_URL); // bookkeeping on the shared server, which stays up
    const store = new RedisStorage({ url, keyPrefix: keys.store });
    const eventLog = new RedisEventLog({ url: queueUrl, keyPrefix: keys.log, logger: silent });
    const runner = new QueueRunner({
      connection: { url: queueUrl },
      store,
      eventLog,
      prefix: keys.bull,
      keyPrefix: keys.lines,
      backoff: { type: 'fixed', delay: 200 },
    });
    const workers = [1, 2].map(() =>
      startWorker({
        agents: worldAgents(book, config),
        store,
        eventLog,
        connection: { url: queueUrl },
        prefix: keys.bull,
        keyPrefix: keys.lines,
        logger: silent,
        ...FAST,
      }),
    );
    try {
      await Promise.all(workers.map((w) => w.waitUntilReady()));
      const sessions = Array.from({ length: 6 }, (_, i) => `s${i}`);
      const runs = await Promise.all(
        sessions.map((sessionId) =>
          runner.start({ session: { userId: 'u', agentId: 'ops', sessionId }, input: 'Deploy.' }),
        ),
      );
      await new Promise((r) => setTimeout(r, 700));
      server.freeze();
      await new Promise((r) => setTimeout(r, 5000));
      server.thaw();
      // Every run ends.
      for (const [i, sessionId] of sessions.entries()) {
        const session = { userId: 'u', agentId: 'ops', sessionId };
        let end: unknown;
        for (const until = Date.now() + 60_000; !end && Date.now() < until; ) {
          const entries = await eventLog.read(session, null, 10_000).catch(() => []);
          end = entries.find((e) => e.event.type === 'RUN_END' && e.event.runId === runs[i]!.runId)?.event;
          if (!end) await new Promise((r) => setTimeout(r, 200));
        }
        expect(end, sessionId).toMatchObject({ status: 'ended' });
        const record = await store.getSession('u', 'ops', sessionId);
        const reply = record!.state.context.at(-1)!;
        expect(reply.finishedReason).toBe('completed');
        // A client that reduces the session's log ends with exactly the stored message.
        const log = await eventLog.read(session, null, 10_000);
        expect(replayEvents(agentEvents(log)), sessionId).toEqual(reply);
      }
      const execs = await book.keys(`${keys.book}:exec:*`);
      for (const k of execs) expect(Number(await book.get(k)), k).toBe(1);
      expect(Number((await book.get(`${keys.book}:overlap`)) ?? 0)).toBe(0);
      expect(unhandled).toEqual([]);
    } finally {
      server.thaw();
      await Promise.allSettled(workers.map((w) => w.close()));
      await runner.close();
      await eventLog.close();
      await store.close();
      await deleteByPrefix(book, config.prefix);
      book.disconnect();
      await server.dispose();
      process.off('unhandledRejection', onUnhandled);
    }
  }, 120_000);
});
