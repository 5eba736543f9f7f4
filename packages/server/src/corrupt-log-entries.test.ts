import { InMemorySessionStore } from '@agentkit/core';
import { textChunks } from '@agentkit/core/testing';
import { as } from '@agentkit/test-fixtures';
import { deleteByPrefix, REDIS_URL, uniquePrefix } from '@agentkit/test-redis';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { opsAgent, startServer } from '../test/helpers';
import { RedisEventLog } from './redis';
import { readSse } from './testing';

// Entries written into a session's stream by something else. The last one is JSON to Redis's Lua cjson
// (hex numbers), not to JSON.parse: the log's newest-id check and its reads disagree about it.
const CORRUPT = ['not json', '{"no":"type"}', '[1,2]', '{"type":"TEXT_BLOCK_DELTA","n":0x10}'];

let admin: Redis;
const prefix = uniquePrefix('corrupt-log');
beforeAll(() => {
  admin = new Redis(REDIS_URL);
});
afterAll(async () => {
  await deleteByPrefix(admin, prefix);
  admin.disconnect();
});

/** A server on a Redis event log whose reads are counted; the model streams 4 chunks, a second apart. */
async function serve(name: string) {
  const log = new RedisEventLog({
    url: REDIS_URL,
    keyPrefix: `${prefix}:${name}`,
    logger: { warn() {}, error() {} },
  });
  const read = log.read.bind(log);
  const counter = { reads: 0 };
  log.read = async (...args) => {
    counter.reads++;
    return read(...args);
  };
  const served = await startServer({
    store: new InMemorySessionStore(),
    eventLog: log,
    agents: { ops: opsAgent([], { script: [{ chunks: textChunks('one two three ', 4), delayMs: 1_000 }] }) },
  });
  const stream = async () => (await admin.keys(`${prefix}:${name}:*events*`))[0]!;
  return {
    ...served,
    counter,
    stream,
    async close() {
      await served.close();
      await log.close();
    },
  };
}

describe('corrupt entries in a Redis event log', () => {
  it('followers of an idle session skip them and end; they never spin on them', async () => {
    const served = await serve('idle');
    try {
      const alice = as('alice', served.url);
      const { messages } = await readSse(
        await alice('/agents/ops/sessions/c1/replies', {
          method: 'POST',
          headers: { Accept: 'text/event-stream' },
          body: JSON.stringify({ input: 'Go.' }),
        }),
      );
      for (const e of CORRUPT) await admin.xadd(await served.stream(), '*', 'e', e);
      served.counter.reads = 0;
      const resumed = await readSse(
        await alice('/agents/ops/sessions/c1/events', {
          headers: { 'Last-Event-ID': messages.at(-1)!.id! },
          signal: AbortSignal.timeout(5_000),
        }),
      );
      expect(resumed.messages).toEqual([]);
      const replayed = await readSse(
        await alice('/agents/ops/sessions/c1/events', { signal: AbortSignal.timeout(5_000) }),
      );
      expect(replayed.messages.at(-1)!.event).toMatchObject({ type: 'RUN_END', status: 'ended' });
      expect(served.counter.reads).toBeLessThan(10);
    } finally {
      await served.close();
    }
  }, 30_000);

  it('a follower of a running reply skips them and does not spin while the reply is quiet', async () => {
    const served = await serve('running');
    try {
      const alice = as('alice', served.url);
      await alice('/agents/ops/sessions/c2/replies', {
        method: 'POST',
        body: JSON.stringify({ input: 'Go.' }),
      });
      const cut = new AbortController();
      const first = await readSse(await alice('/agents/ops/sessions/c2/events', { signal: cut.signal }), {
        until: (e) => e.type === 'TEXT_BLOCK_DELTA',
      });
      cut.abort();
      // The next chunk comes in a second: the corrupt entries are the newest meanwhile.
      for (const e of CORRUPT) await admin.xadd(await served.stream(), '*', 'e', e);
      served.counter.reads = 0;
      const following = readSse(
        await alice('/agents/ops/sessions/c2/events', {
          headers: { 'Last-Event-ID': first.messages.at(-1)!.id! },
          signal: AbortSignal.timeout(10_000),
        }),
      );
      await new Promise((r) => setTimeout(r, 300));
      const readsWhileQuiet = served.counter.reads;
      const { messages } = await following;
      expect(messages.at(-1)!.event).toMatchObject({ type: 'RUN_END', status: 'ended' });
      expect(readsWhileQuiet).toBeLessThan(20);
    } finally {
      await served.close();
    }
  }, 30_000);
});
