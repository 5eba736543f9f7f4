import { StoreConnectionError } from '@agentkit/core';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandsSent, freePort, type RedisProcess, startRedisServer } from '@agentkit/test-redis';
import { retryUntil } from '../test/retry-until';
import { RedisStorage } from './redis-storage';

let server: RedisProcess;
beforeAll(async () => {
  server = await startRedisServer();
});
afterAll(async () => {
  await server.dispose();
});

describe('RedisStorage when Redis goes away', () => {
  it('fails fast with StoreConnectionError while Redis is down, and works again after it is back', async () => {
    const store = new RedisStorage({ port: server.port, keyPrefix: 'conn' });
    try {
      await store.upsertSession('u', 'a', 's', { metadata: { n: 1 } });
      await server.kill();
      const started = Date.now();
      for (const op of [
        () => store.getSession('u', 'a', 's'),
        () => store.upsertSession('u', 'a', 's'),
        () => store.listSessions('u', 'a'),
        () => store.deleteSession('u', 'a', 's'),
      ]) {
        const error = await op().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(StoreConnectionError);
        expect((error as Error).message).toMatch(/^Redis \w+ failed: /);
      }
      expect(Date.now() - started).toBeLessThan(2000);
      await server.restart();
      // The server restarted without persistence: the caller retries and the store works again.
      const record = await retryUntil(
        () => store.upsertSession('u', 'a', 's', { metadata: { n: 2 } }),
        10_000,
      );
      expect(record.version).toBe(1);
      expect((await store.getSession('u', 'a', 's'))?.metadata).toEqual({ n: 2 });
    } finally {
      await store.close();
    }
  });

  it('a store created while Redis is unreachable reports StoreConnectionError, then connects once it is up', async () => {
    const port = await freePort();
    const store = new RedisStorage({ port, keyPrefix: 'late' });
    let late: RedisProcess | undefined;
    try {
      const error = await store.getSession('u', 'a', 's').catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StoreConnectionError);
      late = await startRedisServer([], port);
      expect(await retryUntil(() => store.getSession('u', 'a', 's'), 10_000)).toBeNull();
    } finally {
      await store.close();
      await late?.dispose();
    }
  });

  it('close() returns promptly while the client is reconnecting', async () => {
    const port = await freePort();
    const store = new RedisStorage({ port });
    await store.getSession('u', 'a', 's').catch(() => undefined);
    const started = Date.now();
    await store.close();
    expect(Date.now() - started).toBeLessThan(200);
    // It does not come back: a server appearing on the port later gets no connection from it.
    const late = await startRedisServer([], port);
    try {
      await new Promise((r) => setTimeout(r, 300));
      expect((store.client as Redis).status).not.toBe('ready');
      await expect(store.getSession('u', 'a', 's')).rejects.toThrow(/closed/);
    } finally {
      await late.dispose();
    }
  });
});

describe('RedisStorage round trips', () => {
  it('uses one command per load, per save and per lease operation', async () => {
    const store = new RedisStorage({ port: server.port, keyPrefix: 'rt' });
    try {
      await store.upsertSession('u', 'a', 's');
      await store.getSession('u', 'a', 's');
      await store.listSessions('u', 'a');
      await store.releaseLease('u', 'a', 's', (await store.acquireLease('u', 'a', 's')).token);
      const seen = await commandsSent(server.port, async () => {
        const record = await store.getSession('u', 'a', 's');
        await store.updateSessionState('u', 'a', 's', record!.state, { expectedVersion: record!.version });
        await store.listSessions('u', 'a');
        // A reply under a lease: one round trip to acquire, one to save (fenced), one to release.
        const grant = await store.acquireLease('u', 'a', 's');
        await store.updateSessionState('u', 'a', 's', record!.state, {
          expectedVersion: record!.version + 1,
          leaseToken: grant.token,
        });
        await store.releaseLease('u', 'a', 's', grant.token);
      });
      expect(seen).toEqual(['hgetall', 'evalsha', 'evalsha', 'evalsha', 'evalsha', 'evalsha']);
    } finally {
      await store.close();
    }
  });
});
