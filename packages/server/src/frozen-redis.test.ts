import { InMemorySessionStore } from '@agentkit/core';
import { textChunks } from '@agentkit/core/testing';
import { RedisStorage } from '@agentkit/storage-redis';
import { as } from '@agentkit/test-fixtures';
import { type RedisProcess, startRedisServer } from '@agentkit/test-redis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { opsAgent, startServer } from '../test/helpers';
import type { AgentServerOptions } from './agent-server-options';
import { RedisEventLog } from './redis';
import { readSse } from './testing';

// A frozen Redis (SIGSTOP) accepts connections and never answers. Timeouts are short here.
const TIMEOUT_MS = 300;
let redis: RedisProcess;
const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);

beforeAll(async () => {
  redis = await startRedisServer();
  process.on('unhandledRejection', onUnhandled);
});
afterEach(() => redis.thaw());
afterAll(async () => {
  process.off('unhandledRejection', onUnhandled);
  await redis.dispose();
});

async function serve(logger?: AgentServerOptions['logger']) {
  const eventLog = new RedisEventLog({
    port: redis.port,
    keyPrefix: `frozen-${Math.random().toString(36).slice(2)}`,
    connectTimeoutMs: TIMEOUT_MS,
    commandTimeoutMs: TIMEOUT_MS,
    recheckIntervalMs: 200,
  });
  const served = await startServer({
    store: new InMemorySessionStore(),
    eventLog,
    agents: { ops: opsAgent([], { script: [{ chunks: textChunks('word '.repeat(200), 5), delayMs: 10 }] }) },
    leaseTtlMs: 1_500,
    limits: { heartbeatMs: 300 },
    ...(logger ? { logger } : {}),
  });
  return {
    ...served,
    async close() {
      await served.close();
      await eventLog.close();
    },
  };
}

describe('the server with an event log on a Redis that freezes', () => {
  it('a reply running when it freezes ends (its stream too), and the session takes replies again after the thaw', async () => {
    const served = await serve();
    try {
      const alice = as('alice', served.url);
      let deltas = 0;
      const stream = readSse(
        await alice('/agents/ops/sessions/s1/replies', {
          method: 'POST',
          headers: { Accept: 'text/event-stream' },
          body: JSON.stringify({ input: 'Talk.' }),
          signal: AbortSignal.timeout(15_000),
        }),
        {
          until: (e) => {
            if (e.type === 'TEXT_BLOCK_DELTA' && ++deltas === 5) {
              redis.freeze();
              setTimeout(() => redis.thaw(), 5 * TIMEOUT_MS);
            }
            return false;
          },
        },
      );
      await stream; // ends (RUN_END, or the stream ends once the run is over) instead of waiting forever
      // The run released its lease: a new reply goes ahead (not 409 for ever).
      let status = 0;
      for (const until = Date.now() + 5_000; Date.now() < until; ) {
        const next = await alice('/agents/ops/sessions/s1/replies', {
          method: 'POST',
          body: JSON.stringify({ input: 'Again.' }),
        });
        status = next.status;
        if (status === 202) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(status).toBe(202);
      expect(unhandled).toEqual([]);
    } finally {
      await served.close();
    }
  }, 30_000);

  it('requests while it is frozen get a retryable 503 within the timeouts, also GET …/events with Last-Event-ID', async () => {
    const served = await serve();
    try {
      const alice = as('alice', served.url);
      await readSse(
        await alice('/agents/ops/sessions/s2/replies', {
          method: 'POST',
          headers: { Accept: 'text/event-stream' },
          body: JSON.stringify({ input: 'Talk.' }),
        }),
      );
      redis.freeze();
      for (const [path, init] of [
        ['/agents/ops/sessions/s2/replies', { method: 'POST', body: JSON.stringify({ input: 'More.' }) }],
        ['/agents/ops/sessions/s2/events', {}],
        ['/agents/ops/sessions/s2/events', { headers: { 'Last-Event-ID': '1-0' } }],
      ] as const) {
        const at = Date.now();
        const r = await alice(path, { ...init, signal: AbortSignal.timeout(10_000) });
        expect(r.status, path).toBe(503);
        expect(r.headers.get('retry-after')).toBe('1');
        expect(await r.json()).toMatchObject({ code: 'STORE_CONNECTION' });
        expect(Date.now() - at).toBeLessThan(3 * TIMEOUT_MS + 2_000);
      }
      redis.thaw();
      const back = await alice('/agents/ops/sessions/s2/events', { headers: { 'Last-Event-ID': '1-0' } });
      expect(back.status).toBe(200);
      expect(unhandled).toEqual([]);
    } finally {
      await served.close();
    }
  }, 30_000);

  it('with the store on it (the log in memory), a running reply still streams to its RUN_END (failed, STORE_CONNECTION)', async () => {
    const store = new RedisStorage({
      port: redis.port,
      keyPrefix: `frozen-${Math.random().toString(36).slice(2)}`,
      connectTimeoutMs: TIMEOUT_MS,
      commandTimeoutMs: TIMEOUT_MS,
    });
    const served = await startServer({
      store,
      agents: {
        ops: opsAgent([], { script: [{ chunks: textChunks('word '.repeat(100), 5), delayMs: 10 }] }),
      },
      leaseTtlMs: 1_500,
      limits: { heartbeatMs: 300 },
    });
    try {
      let deltas = 0;
      const { messages } = await readSse(
        await as('alice', served.url)('/agents/ops/sessions/s3/replies', {
          method: 'POST',
          headers: { Accept: 'text/event-stream' },
          body: JSON.stringify({ input: 'Talk.' }),
          signal: AbortSignal.timeout(15_000),
        }),
        {
          until: (e) => {
            if (e.type === 'TEXT_BLOCK_DELTA' && ++deltas === 3) redis.freeze();
            return false;
          },
        },
      );
      // The follower asked the frozen store whether the run still holds its lease: no answer is no reason
      // to drop the stream.
      expect(messages.at(-1)!.event).toMatchObject({
        type: 'RUN_END',
        status: 'failed',
        error: { code: 'STORE_CONNECTION' },
      });
      expect(unhandled).toEqual([]);
    } finally {
      redis.thaw();
      await served.close();
      await store.close();
    }
  }, 30_000);

  it("a follower whose log stops answering ends its stream and says so in the server's logger, not on the console", async () => {
    const warnings: string[] = [];
    const served = await serve({ warn: (m: string) => warnings.push(m), error: () => {} });
    const consoleError = vi.spyOn(console, 'error');
    try {
      let deltas = 0;
      await readSse(
        await as('alice', served.url)('/agents/ops/sessions/s4/replies', {
          method: 'POST',
          headers: { Accept: 'text/event-stream' },
          body: JSON.stringify({ input: 'Talk.' }),
          signal: AbortSignal.timeout(15_000),
        }),
        {
          until: (e) => {
            if (e.type === 'TEXT_BLOCK_DELTA' && ++deltas === 5) redis.freeze();
            return false;
          },
        },
      );
      expect(warnings.some((w) => /event stream ended: Redis \w+ failed/.test(w))).toBe(true);
      expect(consoleError).not.toHaveBeenCalled();
    } finally {
      consoleError.mockRestore();
      redis.thaw();
      await served.close();
    }
  }, 30_000);
});
