import { createServer, type Server, type Socket } from 'node:net';
import { StoreConnectionError } from '@agentkit/core';
import { InMemoryEventLog } from '@agentkit/server';
import { InMemorySessionStore } from '@agentkit/core';
import { startRedisServer } from '@agentkit/test-redis';
import { afterEach, describe, expect, it } from 'vitest';
import { QueueRunner } from './queue-runner';
import { startWorker } from './start-worker';
import { Agent } from '@agentkit/core';
import { ScriptedModel, textChunks } from '@agentkit/core/testing';

/** A TCP server that accepts connections and never answers (a frozen Redis). */
async function blackHole(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `redis://127.0.0.1:${port}`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a QueueRunner whose Redis accepts connections and never answers', () => {
  it('start and interrupt fail with StoreConnectionError within commandTimeoutMs; close returns', async () => {
    const hole = await blackHole();
    cleanups.push(hole.close);
    const runner = new QueueRunner({
      connection: { url: hole.url },
      store: new InMemorySessionStore(),
      eventLog: new InMemoryEventLog(),
      commandTimeoutMs: 300,
    });
    const session = { userId: 'u', agentId: 'a', sessionId: 's' };
    for (const call of [() => runner.start({ session, input: 'Hi' }), () => runner.interrupt(session)]) {
      const started = Date.now();
      const error = await call().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(StoreConnectionError);
      expect(Date.now() - started).toBeLessThan(300 + 3000);
    }
    const closing = Date.now();
    await runner.close();
    expect(Date.now() - closing).toBeLessThan(5000);
  }, 30_000);

  it('a worker started against it closes within shutdownTimeoutMs and a second, and logs no unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    cleanups.push(async () => {
      process.off('unhandledRejection', onUnhandled);
    });
    const hole = await blackHole();
    cleanups.push(hole.close);
    const model = new ScriptedModel([textChunks('Hi')], { onExhausted: 'repeat' });
    const worker = startWorker({
      agents: { a: ({ state }) => new Agent({ name: 'a', model, state }) },
      store: new InMemorySessionStore(),
      eventLog: new InMemoryEventLog(),
      connection: { url: hole.url },
      shutdownTimeoutMs: 500,
      logger: { warn: () => {}, error: () => {} },
    });
    await new Promise((r) => setTimeout(r, 500));
    const closing = Date.now();
    await worker.close();
    expect(Date.now() - closing).toBeLessThan(500 + 5000);
    await new Promise((r) => setTimeout(r, 200));
    expect(unhandled).toEqual([]);
  }, 30_000);

  it('a start that timed out on a frozen Redis leaves no place in line behind once Redis runs it', async () => {
    const server = await startRedisServer();
    cleanups.push(() => server.dispose());
    const url = `redis://127.0.0.1:${server.port}`;
    const runner = new QueueRunner({
      connection: { url },
      store: new InMemorySessionStore(),
      eventLog: new InMemoryEventLog(),
      commandTimeoutMs: 300,
    });
    cleanups.push(async () => {
      server.thaw();
      await runner.close();
    });
    const session = { userId: 'u', agentId: 'a', sessionId: 's' };
    await runner.start({ session: { ...session, sessionId: 'warm' }, input: 'Hi' }); // connected
    server.freeze();
    await expect(runner.start({ session, input: 'Hi' })).rejects.toBeInstanceOf(StoreConnectionError);
    server.thaw();
    // Not SESSION_BUSY for the 30 s an orphaned place takes to be cleared: the place was given back.
    await new Promise((r) => setTimeout(r, 200));
    expect((await runner.start({ session, input: 'Hi' })).runId).toEqual(expect.any(String));
  }, 30_000);
});
