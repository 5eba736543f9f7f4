import { ConfigError } from '@agentkit/core';
import type { ConnectionOptions } from 'bullmq';
import { withDeadline } from '@agentkit/storage-redis/connection';
import { Cluster, Redis, type RedisOptions } from 'ioredis';

/**
 * How the queue reaches Redis: an ioredis `Redis` or `Cluster` (BullMQ uses it, and duplicates it for its
 * blocking connections) or ioredis options (a `url` included). On Redis Cluster, give BullMQ a `prefix`
 * with a hash tag (`{bull}`), as its documentation says.
 */
export type QueueConnection = Redis | Cluster | (RedisOptions & { url?: string });

/** A client of our own for the queue's per-session keys (closed with `quit`). */
export function ownClient(connection: QueueConnection): Redis | Cluster {
  if (connection instanceof Redis) return connection.duplicate();
  if (connection instanceof Cluster) return connection.duplicate();
  const { url, ...options } = connection;
  const client = url ? new Redis(url, options) : new Redis(options);
  // Errors surface on the commands; without a listener ioredis prints every reconnect failure.
  client.on('error', () => {});
  return client;
}

/** What BullMQ takes as its `connection` (a URL becomes host, port, … options). */
export function bullConnection(connection: QueueConnection): ConnectionOptions {
  // ioredis's own types and BullMQ's description of them differ in details; BullMQ takes either.
  if (connection instanceof Redis || connection instanceof Cluster) return connection as ConnectionOptions;
  const { url, ...options } = connection;
  if (!url) return options as ConnectionOptions;
  if (!URL.canParse(url) || !/^rediss?:$/.test(new URL(url).protocol))
    throw new ConfigError(`connection.url must be a redis:// or rediss:// URL.`, { field: 'connection.url' });
  const parsed = new URL(url);
  return {
    host: parsed.hostname,
    port: Number(parsed.port || 6379),
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(parsed.pathname.length > 1 ? { db: Number(parsed.pathname.slice(1)) } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
    ...options,
  } as ConnectionOptions;
}

/**
 * Closes a BullMQ queue, queue-events or worker gracefully, or — when its Redis does not answer within
 * `ms` (frozen, unreachable) — drops its connections, so that shutting down never hangs.
 */
export async function closeOrDisconnect(
  target: { close(): Promise<void>; disconnect(): Promise<void> },
  ms = 1000,
): Promise<void> {
  try {
    await withDeadline(target.close(), ms, undefined, () => new Error('close timed out'));
  } catch {
    await withDeadline(target.disconnect(), ms, undefined, () => new Error('disconnect timed out')).catch(
      () => {},
    );
  }
}
