import type { Cluster, Redis, RedisOptions } from 'ioredis';

/**
 * How a Redis-backed agentkit component reaches Redis (`RedisStorage`, and `RedisEventLog` of
 * `@agentkit/server/redis`): either `client` or connection options (`url` and/or `host`, `port`, …).
 */
export interface RedisConnectionOptions {
  /**
   * An existing ioredis `Redis` or `Cluster` instance; a client you pass is never closed for you. For fast
   * failures while Redis is down, create it with `enableOfflineQueue: false` and `maxRetriesPerRequest: 0`
   * (as the clients made from the other options are); `commandTimeoutMs` bounds every call either way.
   */
  client?: Redis | Cluster;
  /** A `redis://` or `rediss://` URL (credentials and db included). Fields below override its parts. */
  url?: string;
  /** Default `127.0.0.1` (or the URL's host). */
  host?: string;
  /** Default `6379` (or the URL's port). */
  port?: number;
  /** The database index. Default `0`. */
  db?: number;
  /** ACL user name (Redis 6+). */
  username?: string;
  /** The password (with `username`: of that ACL user). */
  password?: string;
  /** `true` for TLS with default settings, or Node TLS options. */
  tls?: boolean | RedisOptions['tls'];
  /**
   * How long a call waits for the connection to Redis to be set up (TCP connect and handshake) before it
   * fails with `StoreConnectionError`, in ms. Default 5000.
   */
  connectTimeoutMs?: number;
  /**
   * How long a call waits for Redis to answer before it fails with `StoreConnectionError`, in ms (a write
   * that timed out may still take effect). Default 5000.
   */
  commandTimeoutMs?: number;
  /** Further ioredis options for the client made from these options (ignored with `client`). */
  redisOptions?: RedisOptions;
}
