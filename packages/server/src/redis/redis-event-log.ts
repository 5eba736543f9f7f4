import { ConfigError, InvalidInputError, type Logger, type SessionKey } from '@agentkit/core';
import { checkSessionKey } from '@agentkit/core/store';
import { type LuaScript, RedisConnection } from '@agentkit/storage-redis/connection';
import type { Cluster, Redis } from 'ioredis';
import type { EventLog, LogEntry, LogEvent } from '../event-log';
import { formatLogId, type LogId, parseLogId } from '../log-ids';
import { EventLogKeys } from './event-log-keys';
import { APPEND, LAST_READABLE } from './event-log-scripts';
import type { RedisEventLogOptions } from './redis-event-log-options';
import { RedisPubSub } from './redis-pub-sub';
import { SessionFollowers } from './session-followers';

/** A followed session keeps its subscription this long after its last follower left. */
const FOLLOW_LINGER_MS = 30_000;
/** Entries fetched per command when a read skips corrupt ones or asks for many. */
const PAGE = 1000;
/** The stream field holding an entry's event (JSON). */
const EVENT_FIELD = 'e';
const DEFAULT_CONNECTION_NAME = 'agentkit-event-log';

/**
 * An {@link EventLog} in Redis Streams, over ioredis, for any number of server processes: one stream per
 * session (`XADD` with a cap and a TTL; ids are Redis's own `<ms>-<seq>`), Redis Cluster–safe keys with
 * the hash tags of `@agentkit/storage-redis`, and interrupts over pub/sub.
 *
 * Following scales with the number of followers, not connections: all `waitFor` calls of an instance
 * share one pub/sub connection. `append` publishes the newest id on the session's wake-up channel in
 * the same round trip (sharded pub/sub on a Cluster, so only the stream's node carries it); a follower
 * subscribed to it wakes at once. Pub/sub may lose a message (a dropped connection, a failover), so the
 * log also checks the followed sessions after every reconnect and every `recheckIntervalMs`.
 *
 * Corrupt entries (not a JSON event) are skipped with a warning, never returned or thrown. Needs Redis
 * 6.2 or later; on Redis Cluster, 7.0 or later.
 * @example
 * await using log = new RedisEventLog({ url: 'redis://127.0.0.1:6379' });
 * const key = { userId: 'user-1', agentId: 'agent-1', sessionId: 'session-1' };
 * const [id] = await log.append(key, [{ type: 'USER_INTERRUPT' }]);
 * const entries = await log.read(key, null, 100);
 */
export class RedisEventLog implements EventLog, AsyncDisposable {
  /** The ioredis client of the log's commands (yours when you passed `client`). */
  readonly client: Redis | Cluster;
  private readonly connection: RedisConnection;
  private readonly keys: EventLogKeys;
  private readonly maxEntries: number;
  private readonly ttl: number;
  private readonly logger: Logger;
  private readonly publishCommand: 'PUBLISH' | 'SPUBLISH';
  private readonly pubsub: RedisPubSub;
  private readonly followers: SessionFollowers;
  private readonly listeners = new Set<(session: SessionKey) => void>();
  private readonly recheckTimer: ReturnType<typeof setInterval>;
  /** Corrupt entries already reported (so a thousand followers do not log one entry a thousand times). */
  private readonly reported = new Set<string>();

  constructor(options: RedisEventLogOptions = {}) {
    this.keys = new EventLogKeys(options.keyPrefix ?? 'agentkit');
    this.maxEntries = positiveInteger('maxEntriesPerSession', options.maxEntriesPerSession ?? 10_000);
    this.ttl = positiveInteger('ttlSeconds', options.ttlSeconds ?? 86_400);
    const recheckIntervalMs = positiveInteger('recheckIntervalMs', options.recheckIntervalMs ?? 2000);
    this.logger = options.logger ?? console;
    this.connection = new RedisConnection(options, {
      name: 'RedisEventLog',
      wrongType: 'its event-log key holds a value of the wrong type (not a stream).',
      connectionName: DEFAULT_CONNECTION_NAME,
    });
    this.client = this.connection.client;
    this.publishCommand = this.client.isCluster ? 'SPUBLISH' : 'PUBLISH';
    this.pubsub = new RedisPubSub(
      this.client,
      {
        connectionName: `${connectionNameOf(this.client)}:pubsub`,
        connectTimeoutMs: this.connection.connectTimeoutMs,
        commandTimeoutMs: this.connection.commandTimeoutMs,
      },
      {
        message: (channel, message) => this.onMessage(channel, message),
        reconnected: () => this.followers.checkAll(),
      },
    );
    this.followers = new SessionFollowers(
      {
        subscribe: (channel) => this.pubsub.subscribe(channel, 'shard'),
        unsubscribe: (channel) => this.pubsub.unsubscribe(channel),
        lastReadable: (stream, after) => this.lastReadable(stream, after),
      },
      FOLLOW_LINGER_MS,
    );
    this.recheckTimer = setInterval(() => {
      this.pubsub.retryFailed();
      this.followers.checkAll();
    }, recheckIntervalMs);
    this.recheckTimer.unref();
  }

  /** Appends the events in one round trip (one script: `XADD` each, `EXPIRE`, publish the newest id). */
  async append(session: SessionKey, events: readonly LogEvent[]): Promise<string[]> {
    const key = checkKey(session);
    const payloads = serializeEvents(events);
    if (payloads.length === 0) return [];
    const ids = await this.call('append', key, () =>
      this.run(
        APPEND,
        [this.keys.stream(key)],
        [this.maxEntries, this.ttl, this.publishCommand, this.keys.wakeChannel(key), ...payloads],
      ),
    );
    return ids as string[];
  }

  /** Up to `limit` entries after `after` (`null`: from the oldest kept), oldest first; skips corrupt entries. */
  async read(session: SessionKey, after: string | null, limit: number): Promise<LogEntry[]> {
    const key = checkKey(session);
    let start = after === null ? '-' : `(${formatLogId(parseLogId(after))}`;
    const stream = this.keys.stream(key);
    const wanted = countOf(limit);
    const out: LogEntry[] = [];
    while (out.length < wanted) {
      const count = Math.min(wanted - out.length, PAGE);
      const raw = await this.call('read', key, () => this.client.xrange(stream, start, '+', 'COUNT', count));
      this.collect(key, raw, out);
      if (raw.length < count) break;
      start = `(${raw[raw.length - 1]![0]}`;
    }
    return out;
  }

  /** Up to `limit` entries before `before` (`null`: from the newest), newest first; skips corrupt entries. */
  async readBackward(session: SessionKey, before: string | null, limit: number): Promise<LogEntry[]> {
    const key = checkKey(session);
    const bound = before === null ? null : parseLogId(before);
    if (bound && bound.ms === 0 && bound.seq === 0) return []; // nothing comes before 0-0 (nor may Redis be asked)
    let end = bound === null ? '+' : `(${formatLogId(bound)}`;
    const stream = this.keys.stream(key);
    const wanted = countOf(limit);
    const out: LogEntry[] = [];
    while (out.length < wanted) {
      const count = Math.min(wanted - out.length, PAGE);
      const raw = await this.call('readBackward', key, () =>
        this.client.xrevrange(stream, end, '-', 'COUNT', count),
      );
      this.collect(key, raw, out);
      if (raw.length < count) break;
      end = `(${raw[raw.length - 1]![0]}`;
    }
    return out;
  }

  /** The id of the oldest entry kept, or `null`. */
  async firstId(session: SessionKey): Promise<string | null> {
    const key = checkKey(session);
    const raw = await this.call('firstId', key, () =>
      this.client.xrange(this.keys.stream(key), '-', '+', 'COUNT', 1),
    );
    return raw[0]?.[0] ?? null;
  }

  /**
   * `null` while `XADD … MAXLEN` has trimmed nothing (`entries-added` is the stream's length, Redis 7);
   * once it has, the id just before the oldest entry kept (Redis does not record the trimmed ids);
   * `undefined` on Redis 6 and older, which do not count the entries added.
   */
  async droppedThrough(session: SessionKey): Promise<string | null | undefined> {
    const key = checkKey(session);
    const info = await this.call('droppedThrough', key, async () => {
      try {
        return (await this.client.xinfo('STREAM', this.keys.stream(key))) as unknown[];
      } catch (error) {
        if (/no such key/i.test((error as Error).message)) return [];
        throw error;
      }
    });
    if (info.length === 0) return null;
    const field = (name: string) => info[info.indexOf(name) + 1];
    const added = field('entries-added');
    if (!info.includes('entries-added') || typeof added !== 'number') return undefined;
    if (added <= Number(field('length'))) return null;
    const first = field('first-entry') as [string, unknown] | null;
    if (!first) return undefined;
    const { ms, seq } = parseLogId(first[0]);
    return seq > 0 ? `${ms}-${seq - 1}` : `${ms - 1}-999999999999999`;
  }

  /** The id of the newest (readable) entry, or `null`. */
  async lastId(session: SessionKey): Promise<string | null> {
    const key = checkKey(session);
    const id = await this.call('lastId', key, () => this.run(LAST_READABLE, [this.keys.stream(key)], ['-']));
    return typeof id === 'string' ? id : null;
  }

  /**
   * Resolves once the log may hold entries after `after` (at once when it does), after `timeoutMs`, or
   * when `signal` aborts; never rejects except with `InvalidInputError` for a bad key or id. While Redis
   * is unreachable it waits (until the timeout, or until Redis is back and shows something new).
   */
  async waitFor(
    session: SessionKey,
    after: string | null,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<void> {
    const key = checkKey(session);
    const bound = after === null ? null : parseLogId(after);
    return this.followers.wait(this.keys.stream(key), this.keys.wakeChannel(key), bound, timeoutMs, signal);
  }

  /** Deletes the session's log. */
  async delete(session: SessionKey): Promise<void> {
    const key = checkKey(session);
    await this.call('delete', key, () => this.client.del(this.keys.stream(key)));
  }

  /** Publishes an interrupt request to every process's `onInterrupt` listeners (classic pub/sub: all nodes). */
  async publishInterrupt(session: SessionKey): Promise<void> {
    const key = checkKey(session);
    const message = JSON.stringify([key.userId, key.agentId, key.sessionId]);
    await this.call('publishInterrupt', key, () => this.client.publish(this.keys.interrupts, message));
  }

  /**
   * Calls `listener` for every interrupt any process publishes (including this one), once the
   * subscription is in place (a moment after the first listener is added); a listener that throws is
   * reported to the logger. Returns a function that unsubscribes.
   */
  onInterrupt(listener: (session: SessionKey) => void): () => void {
    if (this.connection.closed) return () => {};
    this.listeners.add(listener);
    // A failed attempt is retried after a reconnect and by the safety timer.
    if (this.listeners.size === 1) this.pubsub.subscribe(this.keys.interrupts, 'broadcast').catch(() => {});
    return () => {
      if (this.listeners.delete(listener) && this.listeners.size === 0 && !this.connection.closed)
        this.pubsub.unsubscribe(this.keys.interrupts);
    };
  }

  /**
   * Resolves pending `waitFor` calls, drops the interrupt listeners, closes the pub/sub connection and
   * the client the log created (a client you passed stays open). Idempotent.
   */
  async close(): Promise<void> {
    await this.connection.close(async () => {
      clearInterval(this.recheckTimer);
      this.followers.close();
      this.listeners.clear();
      await this.pubsub.close();
    });
  }

  /** `await using log = new RedisEventLog(…)` closes it at the end of the scope. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private async lastReadable(stream: string, after: LogId | null): Promise<LogId | null> {
    const bound = after === null ? '-' : `(${formatLogId(after)}`;
    const id = await this.call('waitFor', null, () => this.run(LAST_READABLE, [stream], [bound]));
    return typeof id === 'string' ? parseLogId(id) : null;
  }

  private onMessage(channel: string, message: string): void {
    if (channel === this.keys.interrupts) {
      this.deliverInterrupt(message);
      return;
    }
    let id: LogId;
    try {
      id = parseLogId(message);
    } catch {
      return; // not ours: a wake-up carries an entry id
    }
    this.followers.wake(channel, id);
  }

  private deliverInterrupt(message: string): void {
    let session: SessionKey;
    try {
      const [userId, agentId, sessionId] = JSON.parse(message) as unknown[];
      session = checkSessionKey(userId, agentId, sessionId);
    } catch {
      this.logger.warn(`@agentkit/server: ignored a malformed interrupt message on ${this.keys.interrupts}.`);
      return;
    }
    for (const listener of [...this.listeners])
      try {
        listener({ ...session });
      } catch (error) {
        this.logger.error('@agentkit/server: an onInterrupt listener failed', error);
      }
  }

  /** Adds the readable entries of a stream reply to `out`; reports the others. */
  private collect(session: SessionKey, raw: Array<[id: string, fields: string[]]>, out: LogEntry[]): void {
    for (const [id, fields] of raw) {
      let json: string | undefined;
      for (let i = 0; i + 1 < fields.length; i += 2) if (fields[i] === EVENT_FIELD) json = fields[i + 1];
      let event: unknown;
      try {
        event = json === undefined ? undefined : JSON.parse(json);
      } catch {
        // reported below
      }
      if (isEventObject(event)) out.push({ id, event: event as LogEvent, json: json as string });
      else this.reportCorrupt(session, id);
    }
  }

  private reportCorrupt(session: SessionKey, id: string): void {
    const entry = `${this.keys.stream(session)} ${id}`;
    if (this.reported.has(entry)) return;
    if (this.reported.size >= 1000) this.reported.clear();
    this.reported.add(entry);
    this.logger.warn(
      `@agentkit/server: skipped entry ${id} of the event log of session '${session.sessionId}' ` +
        `(user '${session.userId}', agent '${session.agentId}'): it is not a JSON event.`,
    );
  }

  private call<T>(operation: string, session: SessionKey | null, command: () => Promise<T>): Promise<T> {
    return this.connection.call(operation, session, command);
  }

  private run(script: LuaScript, keys: string[], args: Array<string | number>): Promise<unknown> {
    return this.connection.run(script, keys, args);
  }
}

function connectionNameOf(client: Redis | Cluster): string {
  const options = client.isCluster ? (client as Cluster).options.redisOptions : (client as Redis).options;
  return options?.connectionName || DEFAULT_CONNECTION_NAME;
}

function positiveInteger(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0)
    throw new ConfigError(`${field} must be a positive integer, got ${String(value)}.`, { field });
  return value;
}

/** The key after checking its ids like a session store (`InvalidInputError`). */
function checkKey(session: SessionKey): SessionKey {
  return checkSessionKey(session?.userId, session?.agentId, session?.sessionId);
}

/** How many entries a `limit` asks for: whole, at least 0 (`NaN`: 0). */
function countOf(limit: number): number {
  return limit >= 1 ? Math.min(Math.floor(limit), Number.MAX_SAFE_INTEGER) : 0;
}

function isEventObject(value: unknown): boolean {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    typeof (value as { type?: unknown }).type === 'string'
  );
}

/** The events as JSON; throws `InvalidInputError` unless each is a JSON object with a string `type`. */
function serializeEvents(events: readonly LogEvent[]): string[] {
  if (!Array.isArray(events)) throw new InvalidInputError('append: events must be an array.');
  return events.map((event, i) => {
    let json: string | undefined;
    try {
      json = JSON.stringify(event);
    } catch (error) {
      throw new InvalidInputError(`append: event ${i} is not JSON (${(error as Error).message}).`);
    }
    if (!isEventObject(event) || !json?.startsWith('{'))
      throw new InvalidInputError(`append: event ${i} is not an object with a string 'type'.`);
    return json;
  });
}
