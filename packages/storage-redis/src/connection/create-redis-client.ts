import { Redis, type RedisOptions } from 'ioredis';
import type { RedisConnectionOptions } from './redis-connection-options';

/**
 * A new ioredis client for the connection options (`client` is ignored), made to fail fast: it connects
 * on first use, queues no command while disconnected, retries none, and bounds the connect and every
 * command by the given timeouts, whatever `redisOptions` says; it reconnects in the background (100 ms
 * more per attempt, 2 s at most). Errors surface on the commands (the client has an `error` listener, so
 * ioredis does not print every failed reconnect).
 */
export function createRedisClient(
  options: Omit<RedisConnectionOptions, 'client'>,
  settings: { connectTimeoutMs: number; commandTimeoutMs: number; connectionName?: string },
): Redis {
  const connection: RedisOptions = {
    retryStrategy: (times) => Math.min(times * 100, 2000),
    ...(settings.connectionName !== undefined ? { connectionName: settings.connectionName } : {}),
    ...options.redisOptions,
    // Fail fast while disconnected instead of queueing commands forever; connect on first use. The
    // handshake (HELLO) is a command too, so commandTimeout also ends a connect to a frozen server.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    lazyConnect: true,
    connectTimeout: settings.connectTimeoutMs,
    commandTimeout: settings.commandTimeoutMs,
  };
  if (options.host !== undefined) connection.host = options.host;
  if (options.port !== undefined) connection.port = options.port;
  if (options.db !== undefined) connection.db = options.db;
  if (options.username !== undefined) connection.username = options.username;
  if (options.password !== undefined) connection.password = options.password;
  if (options.tls) connection.tls = options.tls === true ? {} : options.tls;
  const client = options.url ? new Redis(options.url, connection) : new Redis(connection);
  client.on('error', () => {});
  return client;
}
