import { Redis, type RedisOptions } from 'ioredis';
import type { RedisConnectionOptions } from './redis-connection-options';

/**
 * A new ioredis client for the connection options (`client` is ignored; `host`, `port`, `db`,
 * `username`, `password` and `tls` override the URL's parts, and both override `redisOptions`), made to
 * fail fast: it connects on first use, queues no command while disconnected, retries none, and bounds the
 * connect and every command by the given timeouts, whatever `redisOptions` says; it reconnects in the
 * background (100 ms more per attempt, 2 s at most). Errors surface on the commands (the client has an
 * `error` listener, so ioredis does not print every failed reconnect).
 */
export function createRedisClient(
  options: Omit<RedisConnectionOptions, 'client'>,
  settings: { connectTimeoutMs: number; commandTimeoutMs: number; connectionName?: string },
): Redis {
  // Fail fast while disconnected instead of queueing commands forever; connect on first use. The
  // handshake (HELLO) is a command too, so commandTimeout also ends a connect to a frozen server.
  const rules: RedisOptions = {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    lazyConnect: true,
    connectTimeout: settings.connectTimeoutMs,
    commandTimeout: settings.commandTimeoutMs,
  };
  const fields: RedisOptions = {};
  if (options.host !== undefined) fields.host = options.host;
  if (options.port !== undefined) fields.port = options.port;
  if (options.db !== undefined) fields.db = options.db;
  if (options.username !== undefined) fields.username = options.username;
  if (options.password !== undefined) fields.password = options.password;
  if (options.tls) fields.tls = options.tls === true ? {} : options.tls;
  const rest: RedisOptions = {
    retryStrategy: (times) => Math.min(times * 100, 2000),
    ...(settings.connectionName !== undefined ? { connectionName: settings.connectionName } : {}),
    ...options.redisOptions,
  };
  // ioredis merges its arguments first-wins: the fields override the URL's parts, the rules everything.
  const client: Redis = options.url
    ? Reflect.construct(Redis, [{ ...rules, ...fields }, options.url, rest])
    : new Redis({ ...rest, ...fields, ...rules });
  client.on('error', () => {});
  return client;
}
