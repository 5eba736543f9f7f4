import type { RedisConnectionOptions } from './connection/redis-connection-options';

/** Options of {@link RedisStorage}. Pass either `client` or connection options (`url` and/or `host`, `port`, …). */
export interface RedisStorageOptions extends RedisConnectionOptions {
  /** Prefix of every key. Must not contain `{` or `}`. Default `agentkit`. */
  keyPrefix?: string;
  /**
   * Sliding expiry: a session (and the index of its user and agent) expires this many seconds after it
   * was last read or written. Default: never. Leases expire on their own (see the README).
   */
  ttlSeconds?: number;
}
