import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { commandsSent } from './commands-sent';
import { type RedisProcess, startRedisServer } from './redis-server';

const started: RedisProcess[] = [];
afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.dispose()));
});

async function start(...args: Parameters<typeof startRedisServer>): Promise<RedisProcess> {
  const server = await startRedisServer(...args);
  started.push(server);
  return server;
}

async function processId(port: number): Promise<number> {
  const client = new Redis({ port, lazyConnect: true });
  try {
    await client.connect();
    return Number(/process_id:(\d+)/.exec(await client.info('server'))?.[1]);
  } finally {
    client.disconnect();
  }
}

describe('startRedisServer', () => {
  it('starts a server of its own on a free port: the process answering there is the one it started', async () => {
    const server = await start();
    expect(await processId(server.port)).toBe(server.process.pid);
    await server.restart();
    expect(await processId(server.port)).toBe(server.process.pid);
    await server.dispose();
    expect(server.process.signalCode).toBe('SIGKILL');
  }, 30_000);

  it('refuses a port another redis-server answers on instead of taking that server for its own', async () => {
    const other = await start();
    const error = await startRedisServer([], other.port).catch((e: unknown) => e);
    expect(String(error)).toMatch(
      new RegExp(`port ${other.port} (is served by another redis-server|.*exited)`),
    );
    expect(await processId(other.port)).toBe(other.process.pid);
  }, 30_000);

  it('freezes a server (connections open, no answer) and thaws it', async () => {
    const server = await start();
    const client = new Redis({ port: server.port, commandTimeout: 300, maxRetriesPerRequest: 0 });
    try {
      expect(await client.ping()).toBe('PONG');
      server.freeze();
      await expect(client.ping()).rejects.toThrow(/timed out/i);
      server.thaw();
      expect(await client.ping()).toBe('PONG');
    } finally {
      client.disconnect();
    }
  }, 30_000);
});

describe('commandsSent', () => {
  it('lists what the server executed while `run` ran, and nothing before or after', async () => {
    const server = await start();
    const client = new Redis({ port: server.port });
    try {
      await client.set('before', '1');
      const seen = await commandsSent(server.port, async () => {
        await client.set('k', 'v');
        await client.eval("return redis.call('GET', KEYS[1])", 1, 'k');
      });
      await client.set('after', '1');
      expect(seen).toEqual(['set', 'eval']);
    } finally {
      client.disconnect();
    }
  }, 30_000);
});
