import type { Logger } from '@agentkit/core';
import type { RedisConnectionOptions } from '@agentkit/storage-redis/connection';
import type { Cluster, Redis } from 'ioredis';

/**
 * Options of {@link RedisEventLog}. Pass either `client` or connection options (`url` and/or `host`,
 * `port`, …), as for `RedisStorage` of `@agentkit/storage-redis`.
 */
export interface RedisEventLogOptions extends RedisConnectionOptions {
  /**
   * An existing ioredis `Redis` or `Cluster` instance for the log's commands (it may be the one your
   * `RedisStorage` uses). The log never closes a client it did not create. It opens one more connection
   * of its own for pub/sub (`client.duplicate()`; for a `Cluster`, one per master for sharded pub/sub and
   * one more), and closes that in `close()`. For fast failures while Redis is down, create the client
   * with `enableOfflineQueue: false` and `maxRetriesPerRequest: 0` (the log does this for the client it
   * creates); `commandTimeoutMs` bounds every call either way.
   */
  client?: Redis | Cluster;
  /** Prefix of every key and channel. Must not contain `{` or `}`. Default `agentkit`. */
  keyPrefix?: string;
  /**
   * Entries kept per session: older ones are dropped as new ones come (`XADD … MAXLEN ~ n`, so Redis
   * may keep up to about a hundred more). Default 10 000.
   */
  maxEntriesPerSession?: number;
  /** A session's log expires this many seconds after its last append. Default 86 400 (24 hours). */
  ttlSeconds?: number;
  /**
   * Followers are woken by a pub/sub message from the appending process. Pub/sub delivers at most once,
   * so every this many ms the log also checks the sessions it has followers for (one small script per
   * session): a lost message delays a follower by at most this long. Default 2000.
   */
  recheckIntervalMs?: number;
  /** Where skipped corrupt entries and failing interrupt listeners are reported. Default `console`. */
  logger?: Logger;
}
