import type { ErrorType, Logger, SessionStore } from '@agentkit/core';
import type { AgentDefinition, EventLog } from '@agentkit/server';
import type { RateLimiterOptions } from 'bullmq';
import type { QueueConnection } from './redis-connection';

/** Options of {@link startWorker}. */
export interface StartWorkerOptions {
  /** The agents this worker runs, by id: the same definitions as the server's `agents`. */
  agents: Record<string, AgentDefinition>;
  /** The sessions (shared with the server: e.g. `RedisStorage`). */
  store: SessionStore;
  /** The shared event log clients follow (a `RedisEventLog`); its interrupt channel reaches this worker. */
  eventLog: EventLog;
  /** Redis for the queue (BullMQ) and the per-session lines: an ioredis client or options. */
  connection: QueueConnection;
  /** Replies this process runs at once. Default 8. */
  concurrency?: number;
  /** The BullMQ queue. Default `agentkit-replies` (the runner's). */
  queueName?: string;
  /** BullMQ's key prefix. Default `bull`. */
  prefix?: string;
  /** Prefix of the per-session keys. Default `agentkit`. */
  keyPrefix?: string;
  /**
   * The session lease a running reply holds, renewed every third of it. A worker that dies holds its
   * sessions this long at most. From 100 to 86 400 000 (a day); default 5000 ms.
   */
  leaseTtlMs?: number;
  /**
   * BullMQ's job lock (`lockDuration`), renewed every half of it: a job whose worker died is handed to
   * another once its lock expired and a stalled check (every `stalledIntervalMs`) saw it twice. A takeover
   * comes within about `lockDurationMs + 2 × stalledIntervalMs`. Default 5000 ms.
   */
  lockDurationMs?: number;
  /** How often this worker looks for stalled jobs (BullMQ's `stalledInterval`). Default 2500 ms. */
  stalledIntervalMs?: number;
  /**
   * How many times a job may be taken over after its worker died before BullMQ fails it (a reply that
   * kills every worker it runs on). Default 10.
   */
  maxStalledCount?: number;
  /**
   * Error types of a reply that a job retries with a new reply (after the queue runner's `backoff`, up to
   * its `attempts`). Default `['rate_limit', 'upstream', 'connection']`.
   */
  retryOn?: ErrorType[];
  /** Replies one user may run at once across every worker of the queue. Default: no limit. */
  maxRunningRepliesPerUser?: number;
  /** BullMQ's rate limiter for the whole queue (`{ max, duration }`): e.g. a provider's requests per minute. */
  limiter?: RateLimiterOptions;
  /**
   * A job whose session has another job ahead waits this long before it looks again; it is woken as soon
   * as its turn comes, so this is a safety net. Default 5000 ms.
   */
  parkMs?: number;
  /**
   * How long `close()` waits for running replies to reach a safe point and be handed back; then it closes
   * anyway (the jobs still running are taken over by other workers when this process exits). Default
   * 30 000 ms.
   */
  shutdownTimeoutMs?: number;
  /** Close gracefully on `SIGTERM` and `SIGINT`, then exit. Default `false`. */
  handleSignals?: boolean;
  /** The worker's name in BullMQ (stored on the jobs it processes). */
  name?: string;
  /** Where failures are reported. Default `console`. */
  logger?: Logger;
}
