import { ConfigError, type SessionKey, StoreConnectionError } from '@agentkit/core';
import type { Cluster, Redis } from 'ioredis';
import { closeClient } from './close-client';
import { createRedisClient } from './create-redis-client';
import type { RedisConnectionOptions } from './redis-connection-options';
import { type LuaScript, runScript } from './redis-script';
import { toStoreError } from './to-store-error';
import { withDeadline } from './with-deadline';

const DEFAULT_TIMEOUT_MS = 5000;

/** What a component on a {@link RedisConnection} is called, and what its errors say. */
export interface RedisConnectionSettings {
  /** Its name in the error of a call after `close()`: `The <name> is closed.` */
  name: string;
  /** The reason of the `StoreDataError` for a session's key of the wrong Redis type. */
  wrongType: string;
  /** The ioredis `connectionName` of the client it creates (`redisOptions` may set another). */
  connectionName?: string;
  /** Appended to the message of a command that timed out, e.g. `; a write may still take effect`. */
  timeoutNote?: string;
}

/**
 * The Redis client of a component (`RedisStorage`, `RedisEventLog` of `@agentkit/server/redis`) and the
 * rules of its calls: the client given in `client`, or one it creates that fails fast (see
 * {@link createRedisClient}) and connects on the first call; every call waits at most `connectTimeoutMs`
 * for the connection and `commandTimeoutMs` for the answer, ends with the reason of its abort signal,
 * and fails with agentkit's store errors (see {@link toStoreError}).
 */
export class RedisConnection {
  /** The ioredis client (yours when you passed `client`). */
  readonly client: Redis | Cluster;
  /** Whether the connection created the client (and so closes it). */
  readonly ownsClient: boolean;
  readonly connectTimeoutMs: number;
  readonly commandTimeoutMs: number;
  private connecting: Promise<void> | null = null;
  private closing: Promise<void> | null = null;
  private isClosed = false;

  /** Throws `ConfigError` for a timeout that is not a positive integer. */
  constructor(
    options: RedisConnectionOptions,
    private readonly settings: RedisConnectionSettings,
  ) {
    this.connectTimeoutMs = positiveInteger(
      'connectTimeoutMs',
      options.connectTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    );
    this.commandTimeoutMs = positiveInteger(
      'commandTimeoutMs',
      options.commandTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    );
    this.ownsClient = !options.client;
    this.client =
      options.client ??
      createRedisClient(options, {
        connectTimeoutMs: this.connectTimeoutMs,
        commandTimeoutMs: this.commandTimeoutMs,
        ...(settings.connectionName !== undefined ? { connectionName: settings.connectionName } : {}),
      });
  }

  /** Whether `close()` was called: calls fail with `StoreConnectionError` from then on. */
  get closed(): boolean {
    return this.isClosed;
  }

  /**
   * Runs one operation of the component: waits for the connection (at most `connectTimeoutMs`), then for
   * `command` (at most `commandTimeoutMs`), and rejects with the signal's reason as soon as it aborts.
   * Other failures become store errors naming the operation (and `session`, for a key of the wrong type).
   */
  async call<T>(
    operation: string,
    session: SessionKey | null,
    command: () => Promise<T>,
    signal?: AbortSignal,
  ): Promise<T> {
    try {
      if (this.closed) throw new StoreConnectionError(`The ${this.settings.name} is closed.`);
      const connecting = this.connection();
      if (connecting)
        await withDeadline(
          connecting,
          this.connectTimeoutMs,
          signal,
          () =>
            new StoreConnectionError(
              `Redis ${operation} failed: no connection within ${this.connectTimeoutMs} ms (connectTimeoutMs).`,
            ),
        );
      return await withDeadline(
        command(),
        this.commandTimeoutMs,
        signal,
        () =>
          new StoreConnectionError(
            `Redis ${operation} failed: no answer within ${this.commandTimeoutMs} ms (commandTimeoutMs)${this.settings.timeoutNote ?? ''}.`,
          ),
      );
    } catch (error) {
      if (signal?.aborted && error === signal.reason) throw error;
      throw toStoreError(error, operation, session, this.settings.wrongType);
    }
  }

  /** Runs a script on the client (see {@link runScript}); use it inside `call`. */
  run(script: LuaScript, keys: string[], args: Array<string | number>): Promise<unknown> {
    return runScript(this.client, script, keys, args);
  }

  /**
   * Refuses further calls at once, runs `teardown` (what the component closes first), then closes the
   * client if the connection created it (a client you passed stays open). Idempotent.
   */
  close(teardown?: () => Promise<void>): Promise<void> {
    if (this.closing) return this.closing;
    this.isClosed = true;
    this.closing = (async () => {
      await teardown?.();
      if (this.ownsClient) await closeClient(this.client);
    })();
    return this.closing;
  }

  /** The pending connect of a client the connection created and has not connected yet, if any. */
  private connection(): Promise<void> | null {
    if (!this.ownsClient) return null;
    const client = this.client as Redis;
    if (client.status === 'wait')
      this.connecting ??= client.connect().finally(() => {
        this.connecting = null;
      });
    return this.connecting;
  }
}

function positiveInteger(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0)
    throw new ConfigError(`${field} must be a positive integer, got ${String(value)}.`, { field });
  return value;
}
