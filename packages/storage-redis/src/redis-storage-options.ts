import type { Cluster, Redis, RedisOptions } from 'ioredis';

/** Options of {@link RedisStorage}. Pass either `client` or connection options (`url` and/or `host`, `port`, …). */
export interface RedisStorageOptions {
  /**
   * An existing ioredis `Redis` or `Cluster` instance. The storage never closes a client it did not
   * create. For fast failures while Redis is down, create it with `enableOfflineQueue: false` and
   * `maxRetriesPerRequest: 0` (the storage does this for the clients it creates); `commandTimeoutMs`
   * bounds every call either way.
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
  /** Prefix of every key. Must not contain `{` or `}`. Default `agentkit`. */
  keyPrefix?: string;
  /**
   * Sliding expiry: a session (and the index of its user and agent) expires this many seconds after it
   * was last read or written. Default: never. Leases expire on their own (see the README).
   */
  ttlSeconds?: number;
  /**
   * How long a call waits for the connection to Redis to be set up (TCP connect and handshake) before it
   * fails with `StoreConnectionError`, in ms. Default 5000.
   */
  connectTimeoutMs?: number;
  /**
   * How long a call waits for Redis to answer before it fails with `StoreConnectionError`, in ms (a write
   * that timed out may still take effect; reload to know). Default 5000.
   */
  commandTimeoutMs?: number;
  /** Further ioredis options for the client the storage creates (ignored with `client`). */
  redisOptions?: RedisOptions;
}
