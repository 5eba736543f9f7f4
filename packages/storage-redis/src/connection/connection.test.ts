import { StoreConnectionError, StoreDataError } from '@agentkit/core';
import { deleteByPrefix, REDIS_URL, uniquePrefix } from '@agentkit/test-redis';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { closeClient, createRedisClient, luaScript, RedisConnection, runScript } from './index';

const admin = new Redis(REDIS_URL);
const prefix = uniquePrefix('connection');
afterAll(async () => {
  await deleteByPrefix(admin, prefix);
  await admin.quit();
});

const session = { userId: 'u', agentId: 'a', sessionId: 's' };
const settings = { name: 'TestStore', wrongType: 'its key is not a hash.' };

describe('createRedisClient', () => {
  it('takes the URL, lets the fields override its parts, and keeps the fail-fast rules over redisOptions', () => {
    const client = createRedisClient(
      {
        url: 'redis://alice:secret@example.test:7000/2',
        port: 7001,
        db: 3,
        redisOptions: { enableOfflineQueue: true, connectionName: 'mine' },
      },
      { connectTimeoutMs: 1234, commandTimeoutMs: 567, connectionName: 'default-name' },
    );
    try {
      expect(client.status).toBe('wait'); // connects on first use
      expect(client.options).toMatchObject({
        host: 'example.test',
        port: 7001,
        db: 3,
        username: 'alice',
        password: 'secret',
        connectionName: 'mine',
        enableOfflineQueue: false,
        maxRetriesPerRequest: 0,
        lazyConnect: true,
        connectTimeout: 1234,
        commandTimeout: 567,
      });
      expect(client.listenerCount('error')).toBe(1);
    } finally {
      client.disconnect();
    }
  });

  it('without a URL, takes the fields over redisOptions, and redisOptions for the rest', () => {
    const timeouts = { connectTimeoutMs: 1000, commandTimeoutMs: 1000 };
    const client = createRedisClient(
      { host: 'h.test', redisOptions: { host: 'other.test', port: 7002 } },
      timeouts,
    );
    const secure = createRedisClient({ url: 'rediss://s.test:7003' }, timeouts);
    try {
      expect(client.options).toMatchObject({ host: 'h.test', port: 7002, db: 0 });
      expect(secure.options).toMatchObject({ host: 's.test', port: 7003 });
      expect(secure.options.tls).toBeTruthy();
    } finally {
      client.disconnect();
      secure.disconnect();
    }
  });
});

describe('runScript', () => {
  it('falls back to EVAL for a script the server has not cached, then runs it by its SHA', async () => {
    const script = luaScript(`-- ${prefix}\nreturn ARGV[1] .. KEYS[1]`);
    expect(await admin.script('EXISTS', script.sha)).toEqual([0]);
    expect(await runScript(admin, script, [`${prefix}:k`], ['x'])).toBe(`x${prefix}:k`);
    expect(await admin.script('EXISTS', script.sha)).toEqual([1]);
    expect(await runScript(admin, script, [`${prefix}:k`], ['y'])).toBe(`y${prefix}:k`);
  });
});

describe('RedisConnection', () => {
  it('connects the client it created on the first call, and closes it; calls after close fail', async () => {
    const connection = new RedisConnection({ url: REDIS_URL }, settings);
    expect((connection.client as Redis).status).toBe('wait');
    expect(await connection.call('ping', null, () => connection.client.ping())).toBe('PONG');
    await Promise.all([connection.close(), connection.close()]);
    expect((connection.client as Redis).status).toBe('end');
    const error = await connection.call('ping', null, () => connection.client.ping()).catch((e) => e);
    expect(error).toBeInstanceOf(StoreConnectionError);
    expect(error.message).toBe('The TestStore is closed.');
  });

  it('leaves a client you passed open', async () => {
    const client = new Redis(REDIS_URL);
    try {
      const connection = new RedisConnection({ client }, settings);
      expect(await connection.call('ping', null, () => client.ping())).toBe('PONG');
      let tornDown = false;
      await connection.close(async () => {
        tornDown = true;
      });
      expect(tornDown).toBe(true);
      expect(await client.ping()).toBe('PONG');
    } finally {
      await closeClient(client);
    }
    expect(client.status).toBe('end');
  });

  it("maps a key of the wrong type to StoreDataError naming the session, and other failures to StoreConnectionError; an abort ends a call with the signal's reason", async () => {
    const connection = new RedisConnection({ client: admin }, settings);
    const list = `${prefix}:list`;
    await admin.rpush(list, 'x');
    const wrongType = await connection.call('read', session, () => admin.hgetall(list)).catch((e) => e);
    expect(wrongType).toBeInstanceOf(StoreDataError);
    expect(wrongType.message).toContain('its key is not a hash.');
    const failed = await connection.call('read', null, () => admin.hgetall(list)).catch((e) => e);
    expect(failed).toBeInstanceOf(StoreConnectionError);
    expect(failed.message).toMatch(/^Redis read failed: WRONGTYPE/);
    const controller = new AbortController();
    const reason = new Error('stop');
    const slow = connection.call('wait', null, () => new Promise(() => {}), controller.signal);
    controller.abort(reason);
    expect(await slow.catch((e) => e)).toBe(reason);
  });

  it('refuses timeouts that are not positive integers', () => {
    for (const bad of [0, -1, 1.5, Number.NaN])
      expect(() => new RedisConnection({ commandTimeoutMs: bad }, settings)).toThrow(/commandTimeoutMs/);
  });
});
