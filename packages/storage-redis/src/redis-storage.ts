import {
  type AgentState,
  ConfigError,
  type JSONObject,
  type SessionKey,
  SessionNotFoundError,
  type SessionRecord,
  type SessionStore,
  type SessionSummary,
  StoreConnectionError,
  StoreDataError,
  VersionConflictError,
  type WriteOptions,
  createAgentState,
} from '@agentkit/core';
import {
  checkListOptions,
  checkSessionKey,
  checkUpdateArgs,
  checkUpsertArgs,
  invalidCursor,
  parseStoredState,
  parseStoredSummary,
} from '@agentkit/core/store';
import { type Cluster, Redis, type RedisOptions } from 'ioredis';
import { DELETE, LIST, LOAD_AND_TOUCH, type LuaScript, SAVE } from './lua-scripts';
import { toStoreError } from './redis-errors';
import { RedisKeys, unescapeKeyPart } from './redis-keys';
import type { RedisStorageOptions } from './redis-storage-options';

const MAX_LIST_LIMIT = 1000;
const CURSOR = /^r1\.(\d{16}:[A-Za-z0-9_.%-]+)$/;

type Fields = Record<string, string | undefined>;

/**
 * A {@link SessionStore} in Redis over ioredis: sessions keyed by (userId, agentId, sessionId), writes
 * that compare the expected version atomically in a Lua script, optional sliding TTL, and Redis Cluster
 * support (all keys of a user–agent pair share one hash tag). One round trip per load and per save.
 * @example
 * await using storage = new RedisStorage({ url: 'redis://127.0.0.1:6379' });
 * const record = await storage.getSession('user-1', 'agent-1', 'session-1');
 */
export class RedisStorage implements SessionStore, AsyncDisposable {
  /** The ioredis client in use (yours when you passed `client`). */
  readonly client: Redis | Cluster;
  private readonly ownsClient: boolean;
  private readonly keys: RedisKeys;
  private readonly ttl: number;
  private connecting: Promise<void> | null = null;
  private closed = false;

  constructor(options: RedisStorageOptions = {}) {
    this.keys = new RedisKeys(options.keyPrefix ?? 'agentkit');
    const ttl = options.ttlSeconds;
    if (ttl !== undefined && (!Number.isSafeInteger(ttl) || ttl <= 0))
      throw new ConfigError(`ttlSeconds must be a positive integer, got ${String(ttl)}.`, {
        field: 'ttlSeconds',
      });
    this.ttl = ttl ?? 0;
    if (options.client) {
      this.client = options.client;
      this.ownsClient = false;
      return;
    }
    const connection: RedisOptions = {
      retryStrategy: (times) => Math.min(times * 100, 2000),
      ...options.redisOptions,
      // Fail fast while disconnected instead of queueing commands forever; connect on first use.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      lazyConnect: true,
    };
    if (options.host !== undefined) connection.host = options.host;
    if (options.port !== undefined) connection.port = options.port;
    if (options.db !== undefined) connection.db = options.db;
    if (options.username !== undefined) connection.username = options.username;
    if (options.password !== undefined) connection.password = options.password;
    if (options.tls) connection.tls = options.tls === true ? {} : options.tls;
    this.client = options.url ? new Redis(options.url, connection) : new Redis(connection);
    this.ownsClient = true;
    // Errors surface on the commands; without a listener ioredis would print every reconnect failure.
    this.client.on('error', () => {});
  }

  /** The session, or `null` when it does not exist. Throws `StoreDataError` for a corrupt record. */
  async getSession(userId: string, agentId: string, sessionId: string): Promise<SessionRecord | null> {
    const key = checkSessionKey(userId, agentId, sessionId);
    const recordKey = this.keys.record(key);
    let fields: Fields;
    try {
      await this.ready();
      if (this.ttl > 0) {
        const flat = (await this.run(
          LOAD_AND_TOUCH,
          [recordKey, this.keys.index(userId, agentId)],
          [this.ttl],
        )) as string[];
        fields = {};
        for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i] as string] = flat[i + 1];
      } else {
        fields = await this.client.hgetall(recordKey);
      }
    } catch (error) {
      throw toStoreError(error, 'getSession', key);
    }
    if (Object.keys(fields).length === 0) return null;
    return parseRecord(key, fields);
  }

  /** Creates the session (version 1, a fresh state when none is given) or replaces the given fields (version + 1). */
  async upsertSession(
    userId: string,
    agentId: string,
    sessionId: string,
    data?: { state?: AgentState; metadata?: JSONObject } & WriteOptions,
  ): Promise<SessionRecord> {
    const {
      key,
      stateJson = '',
      metadataJson = '',
      expectedVersion,
    } = checkUpsertArgs(userId, agentId, sessionId, data);
    const fresh = stateJson === '' ? JSON.stringify(createAgentState({ sessionId })) : '';
    return this.save('upsertSession', key, expectedVersion, stateJson, metadataJson, fresh, data?.state);
  }

  /** Saves the state after a reply. Throws `SessionNotFoundError` when the session does not exist. */
  async updateSessionState(
    userId: string,
    agentId: string,
    sessionId: string,
    state: AgentState,
    options?: WriteOptions,
  ): Promise<SessionRecord> {
    const { key, stateJson, expectedVersion } = checkUpdateArgs(userId, agentId, sessionId, state, options);
    return this.save('updateSessionState', key, expectedVersion, stateJson, '', '', state);
  }

  /** The sessions of a user with an agent, newest first, a page at a time (pass back `cursor`; `null` at the end). */
  async listSessions(
    userId: string,
    agentId: string,
    options?: { limit?: number; cursor?: string | null },
  ): Promise<{ sessions: SessionSummary[]; cursor: string | null }> {
    const { limit, cursor } = checkListOptions(userId, agentId, options, MAX_LIST_LIMIT);
    let bound = '+';
    if (cursor !== null) {
      const match = CURSOR.exec(cursor);
      if (!match) throw invalidCursor(cursor);
      bound = `(${match[1]}`;
    }
    let flat: string[];
    try {
      await this.ready();
      const prefix = `${this.clientKeyPrefix()}${this.keys.pairPrefix(userId, agentId)}s:`;
      flat = (await this.run(LIST, [this.keys.index(userId, agentId)], [limit, bound, prefix])) as string[];
    } catch (error) {
      throw toStoreError(error, 'listSessions');
    }
    const sessions: SessionSummary[] = [];
    let last = '';
    for (let i = 0; i + 4 < flat.length && sessions.length < limit; i += 5) {
      const member = flat[i] as string;
      const session = { userId, agentId, sessionId: unescapeKeyPart(member.slice(member.indexOf(':') + 1)) };
      sessions.push(
        parseSummary(session, { v: flat[i + 1], c: flat[i + 2], u: flat[i + 3], m: flat[i + 4] }),
      );
      last = member;
    }
    return { sessions, cursor: flat.length > limit * 5 ? `r1.${last}` : null };
  }

  /** Deletes the session; `false` when it did not exist. */
  async deleteSession(userId: string, agentId: string, sessionId: string): Promise<boolean> {
    const key = checkSessionKey(userId, agentId, sessionId);
    try {
      await this.ready();
      return (await this.run(DELETE, [this.keys.record(key), this.keys.index(userId, agentId)], [])) === 1;
    } catch (error) {
      throw toStoreError(error, 'deleteSession', key);
    }
  }

  /** Closes the connection if the storage created it (a client you passed stays open). Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (!this.ownsClient) return;
    const client = this.client as Redis;
    if (client.status === 'end') return;
    if (client.status !== 'ready') {
      // Connecting or between reconnection attempts: stop it; nothing is pending on the wire.
      client.disconnect();
      return;
    }
    const ended = new Promise((resolve) => client.once('end', resolve));
    try {
      await client.quit();
    } catch {
      client.disconnect();
    }
    await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
  }

  /** `await using storage = new RedisStorage(…)` closes it at the end of the scope. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private async save(
    operation: string,
    key: SessionKey,
    expected: number | undefined,
    stateJson: string,
    metaJson: string,
    freshJson: string,
    state: AgentState | undefined,
  ): Promise<SessionRecord> {
    const now = new Date();
    const iso = now.toISOString();
    let result: unknown[];
    try {
      await this.ready();
      result = (await this.run(
        SAVE,
        [this.keys.record(key), this.keys.index(key.userId, key.agentId)],
        [
          operation === 'upsertSession' ? 'upsert' : 'update',
          expected === undefined ? '' : String(expected),
          iso,
          RedisKeys.member(now.getTime(), key.sessionId),
          metaJson,
          stateJson,
          freshJson,
          this.ttl,
        ],
      )) as unknown[];
    } catch (error) {
      throw toStoreError(error, operation, key);
    }
    const [status, a, createdAt, updatedAt, keptMeta, keptState] = result as [
      string,
      unknown,
      string,
      string,
      string,
      string,
    ];
    if (status === 'NOT_FOUND') throw new SessionNotFoundError(key);
    if (status === 'CONFLICT')
      throw new VersionConflictError(key, expected ?? 0, a === '' ? null : Number(a));
    if (status === 'CORRUPT') throw new StoreDataError(key, String(a));
    return parseRecord(
      key,
      {
        v: String(a),
        c: createdAt,
        u: updatedAt,
        m: metaJson || keptMeta || '{}',
        s: stateJson ? undefined : keptState || freshJson,
      },
      state,
    );
  }

  private async ready(): Promise<void> {
    if (this.closed) throw new StoreConnectionError('The RedisStorage is closed.');
    if (!this.ownsClient) return;
    const client = this.client as Redis;
    if (client.status === 'wait')
      this.connecting ??= client.connect().finally(() => (this.connecting = null));
    if (this.connecting) await this.connecting;
  }

  private async run(script: LuaScript, keys: string[], args: Array<string | number>): Promise<unknown> {
    try {
      return await this.client.evalsha(script.sha, keys.length, ...keys, ...args);
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return await this.client.eval(script.lua, keys.length, ...keys, ...args);
    }
  }

  /** ioredis prefixes the declared keys of a script with its `keyPrefix`; keys built inside Lua need it too. */
  private clientKeyPrefix(): string {
    return (this.client.options as { keyPrefix?: string }).keyPrefix ?? '';
  }
}

function parseSummary(key: SessionKey, f: Fields): SessionSummary {
  let metadata: unknown;
  try {
    metadata = JSON.parse(f.m ?? '');
  } catch (cause) {
    throw new StoreDataError(key, 'its metadata is not valid JSON.', { cause });
  }
  return parseStoredSummary(key, { version: f.v, createdAt: f.c, updatedAt: f.u, metadata });
}

/** Validates a stored record; `state`, when given, is the state just written (not parsed again). */
function parseRecord(key: SessionKey, f: Fields, state?: AgentState): SessionRecord {
  const summary = parseSummary(key, f);
  return { ...summary, state: state ?? parseStoredState(key, f.s) };
}
