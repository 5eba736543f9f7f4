import { randomUUID } from 'node:crypto';
import {
  AgentkitError,
  type AgentState,
  type CallOptions,
  ConfigError,
  type JSONObject,
  type LeaseGrant,
  type LeaseOptions,
  LeaseLostError,
  type ListOptions,
  SessionBusyError,
  type SessionKey,
  SessionNotFoundError,
  type SessionPage,
  type SessionRecord,
  type SessionStore,
  type SessionSummary,
  StoreDataError,
  VersionConflictError,
  type WriteOptions,
  createAgentState,
} from '@agentkit/core';
import {
  checkCallOptions,
  checkLeaseOptions,
  checkLeaseToken,
  checkListOptions,
  checkSessionKey,
  checkUpdateArgs,
  checkUpsertArgs,
  checkWriteOptions,
  invalidCursor,
  parseStoredState,
  parseStoredSummary,
} from '@agentkit/core/store';
import type { Cluster, Redis } from 'ioredis';
import { escapeKeyPart, unescapeKeyPart } from './connection/key-parts';
import { RedisConnection } from './connection/redis-connection';
import type { LuaScript } from './connection/redis-script';
import { ACQUIRE_LEASE, DROP_GRANT, GET_LEASE, RELEASE_LEASE, RENEW_LEASE } from './lease-scripts';
import { DELETE, LIST, LOAD_AND_TOUCH, SAVE } from './lua-scripts';
import { RedisKeys } from './redis-keys';
import type { RedisStorageOptions } from './redis-storage-options';

const MAX_LIST_LIMIT = 1000;
/** The reason of the `StoreDataError` for a session key of the wrong Redis type. */
const WRONG_TYPE = 'its Redis key holds a value of the wrong type (not a hash).';
/** A listing cursor: the escaped index member of the last entry of the previous page. */
const CURSOR = /^r2\.([A-Za-z0-9_.%-]+)$/;

type Fields = Record<string, string | null | undefined>;
/** A script's answer: a status, then its values. */
type Reply = [string, ...unknown[]];

/**
 * A {@link SessionStore} in Redis over ioredis: sessions keyed by (userId, agentId, sessionId), writes
 * that compare the expected version and check the session's lease atomically in a Lua script, leases
 * with fencing tokens timed by the Redis server's clock, optional sliding TTL, connect and command
 * timeouts, and Redis Cluster support (all keys of a user–agent pair share one hash tag). One round trip
 * per load, per save and per lease operation.
 * @example
 * await using storage = new RedisStorage({ url: 'redis://127.0.0.1:6379' });
 * const record = await storage.getSession('user-1', 'agent-1', 'session-1');
 */
export class RedisStorage implements SessionStore, AsyncDisposable {
  /** The ioredis client in use (yours when you passed `client`). */
  readonly client: Redis | Cluster;
  private readonly connection: RedisConnection;
  private readonly keys: RedisKeys;
  private readonly ttl: number;

  constructor(options: RedisStorageOptions = {}) {
    this.keys = new RedisKeys(options.keyPrefix ?? 'agentkit');
    const ttl = options.ttlSeconds;
    if (ttl !== undefined) positiveInteger('ttlSeconds', ttl);
    this.ttl = ttl ?? 0;
    this.connection = new RedisConnection(options, {
      name: 'RedisStorage',
      wrongType: WRONG_TYPE,
      timeoutNote: '; a write may still take effect',
    });
    this.client = this.connection.client;
  }

  /** The session, or `null` when it does not exist. Throws `StoreDataError` for a corrupt record. */
  async getSession(
    userId: string,
    agentId: string,
    sessionId: string,
    options?: CallOptions,
  ): Promise<SessionRecord | null> {
    const key = checkSessionKey(userId, agentId, sessionId);
    const { signal } = checkCallOptions(options);
    const recordKey = this.keys.record(key);
    const fields: Fields = await this.call('getSession', key, signal, async () => {
      if (this.ttl === 0) return await this.client.hgetall(recordKey);
      const flat = (await this.run(
        LOAD_AND_TOUCH,
        [recordKey, this.keys.index(userId, agentId)],
        [this.ttl],
      )) as string[];
      const out: Fields = {};
      for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i] as string] = flat[i + 1];
      return out;
    });
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
      ...write
    } = checkUpsertArgs(userId, agentId, sessionId, data);
    const fresh = stateJson === '' ? JSON.stringify(createAgentState({ sessionId })) : '';
    return this.save('upsertSession', key, write, stateJson, metadataJson, fresh, data?.state);
  }

  /** Saves the state after a reply. Throws `SessionNotFoundError` when the session does not exist. */
  async updateSessionState(
    userId: string,
    agentId: string,
    sessionId: string,
    state: AgentState,
    options?: WriteOptions,
  ): Promise<SessionRecord> {
    const { key, stateJson, ...write } = checkUpdateArgs(userId, agentId, sessionId, state, options);
    return this.save('updateSessionState', key, write, stateJson, '', '', state);
  }

  /**
   * The sessions of a user with an agent, newest first, a page at a time (pass back `cursor`; `null` at
   * the end). Records that cannot be parsed are named in `skipped` instead of failing the listing.
   */
  async listSessions(userId: string, agentId: string, options?: ListOptions): Promise<SessionPage> {
    const { limit, cursor, signal } = checkListOptions(userId, agentId, options, MAX_LIST_LIMIT);
    let bound = '+';
    if (cursor !== null) bound = `(${decodeCursor(cursor)}`;
    const pair = { userId, agentId, sessionId: '*' };
    const prefix = `${this.clientKeyPrefix()}${this.keys.pairPrefix(userId, agentId)}s:`;
    const [status, ...rows] = (await this.call('listSessions', pair, signal, () =>
      this.run(LIST, [this.keys.index(userId, agentId)], [limit, bound, prefix]),
    )) as Reply;
    if (status === 'CORRUPT') throw new StoreDataError(pair, String(rows[0]));
    const sessions: SessionSummary[] = [];
    const skipped: SessionPage['skipped'] = [];
    const count = Math.min(limit, rows.length / 6);
    for (let i = 0; i < count; i++) {
      const entry = listEntry(userId, agentId, rows.slice(i * 6, i * 6 + 6) as ListRow);
      if ('reason' in entry) skipped.push(entry);
      else sessions.push(entry);
    }
    const last = rows[(count - 1) * 6] as string | undefined;
    return {
      sessions,
      cursor: rows.length > limit * 6 && last ? `r2.${escapeKeyPart(last)}` : null,
      skipped,
    };
  }

  /** Deletes the session (its lease stays); `false` when it did not exist. */
  async deleteSession(
    userId: string,
    agentId: string,
    sessionId: string,
    options?: Omit<WriteOptions, 'expectedVersion'>,
  ): Promise<boolean> {
    const key = checkSessionKey(userId, agentId, sessionId);
    const { leaseToken, signal } = checkWriteOptions(options);
    const reply = (await this.call('deleteSession', key, signal, () =>
      this.run(
        DELETE,
        [this.keys.record(key), this.keys.index(userId, agentId), this.keys.lease(key)],
        [leaseToken === undefined ? '' : String(leaseToken), escapeKeyPart(sessionId)],
      ),
    )) as Reply;
    throwRefusal(reply, key, leaseToken);
    return Number(reply[1]) === 1; // a string with ioredis's stringNumbers
  }

  /** Takes the session's lease; `SessionBusyError` (with owner and expiry) while another holder's is live. */
  async acquireLease(
    userId: string,
    agentId: string,
    sessionId: string,
    options?: LeaseOptions,
  ): Promise<LeaseGrant> {
    const key = checkSessionKey(userId, agentId, sessionId);
    const { ttlMs, owner, signal } = checkLeaseOptions(options);
    const leaseKey = this.keys.lease(key);
    const grantId = randomUUID();
    let reply: Reply;
    try {
      reply = (await this.call('acquireLease', key, signal, () =>
        this.run(ACQUIRE_LEASE, [leaseKey], [ttlMs, owner, grantId]),
      )) as Reply;
    } catch (error) {
      // Aborted or timed out after it was sent: the grant may still land (Redis runs the script when it
      // gets to it), and nobody would hold it until it expires. End it if it did; sent on the same
      // connection, this runs after the grant.
      if (!AgentkitError.isInstance(error) || error.code === 'STORE_CONNECTION')
        this.run(DROP_GRANT, [leaseKey], [grantId]).catch(() => {});
      throw error;
    }
    throwRefusal(reply, key);
    return { token: Number(reply[1]), owner, expiresAt: Number(reply[2]) };
  }

  /** Extends a held lease by `ttlMs` from now; `LeaseLostError` when it is no longer current. */
  async renewLease(
    userId: string,
    agentId: string,
    sessionId: string,
    token: number,
    options?: Omit<LeaseOptions, 'owner'>,
  ): Promise<LeaseGrant> {
    const key = checkSessionKey(userId, agentId, sessionId);
    checkLeaseToken(token);
    const { ttlMs, signal } = checkLeaseOptions(options);
    const reply = (await this.call('renewLease', key, signal, () =>
      this.run(RENEW_LEASE, [this.keys.lease(key)], [token, ttlMs]),
    )) as Reply;
    throwRefusal(reply, key, token);
    return toGrant(reply);
  }

  /** Ends a held lease; `false` when it is no longer current. */
  async releaseLease(
    userId: string,
    agentId: string,
    sessionId: string,
    token: number,
    options?: CallOptions,
  ): Promise<boolean> {
    const key = checkSessionKey(userId, agentId, sessionId);
    checkLeaseToken(token);
    const { signal } = checkCallOptions(options);
    const reply = (await this.call('releaseLease', key, signal, () =>
      this.run(RELEASE_LEASE, [this.keys.lease(key)], [token]),
    )) as Reply;
    throwRefusal(reply, key, token);
    return reply[0] === 'OK';
  }

  /** The live lease of the session, or `null`. */
  async getLease(
    userId: string,
    agentId: string,
    sessionId: string,
    options?: CallOptions,
  ): Promise<LeaseGrant | null> {
    const key = checkSessionKey(userId, agentId, sessionId);
    const { signal } = checkCallOptions(options);
    const reply = (await this.call('getLease', key, signal, () =>
      this.run(GET_LEASE, [this.keys.lease(key)], []),
    )) as Reply;
    throwRefusal(reply, key);
    return reply[0] === 'OK' ? toGrant(reply) : null;
  }

  /** Closes the connection if the storage created it (a client you passed stays open). Idempotent. */
  async close(): Promise<void> {
    await this.connection.close();
  }

  /** `await using storage = new RedisStorage(…)` closes it at the end of the scope. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private async save(
    operation: string,
    key: SessionKey,
    write: {
      expectedVersion: number | undefined;
      leaseToken: number | undefined;
      signal: AbortSignal | undefined;
    },
    stateJson: string,
    metaJson: string,
    freshJson: string,
    state: AgentState | undefined,
  ): Promise<SessionRecord> {
    const { expectedVersion: expected, leaseToken, signal } = write;
    const now = new Date();
    const iso = now.toISOString();
    const reply = (await this.call(operation, key, signal, () =>
      this.run(
        SAVE,
        [this.keys.record(key), this.keys.index(key.userId, key.agentId), this.keys.lease(key)],
        [
          operation === 'upsertSession' ? 'upsert' : 'update',
          expected === undefined ? '' : String(expected),
          iso,
          RedisKeys.member(now.getTime(), key.sessionId),
          metaJson,
          stateJson,
          freshJson,
          this.ttl,
          leaseToken === undefined ? '' : String(leaseToken),
        ],
      ),
    )) as Reply;
    const [status, a, createdAt, updatedAt, keptMeta, keptState] = reply as [
      string,
      ...Array<string | number>,
    ];
    if (status === 'NOT_FOUND') throw new SessionNotFoundError(key);
    if (status === 'CONFLICT')
      throw new VersionConflictError(key, expected ?? 0, a === '' ? null : Number(a));
    throwRefusal(reply, key, leaseToken);
    // A kept state is only checked for its top-level shape by the script; its full check runs here.
    return parseRecord(
      key,
      {
        v: String(a),
        c: String(createdAt),
        u: String(updatedAt),
        m: metaJson || String(keptMeta) || '{}',
        s: stateJson ? undefined : String(keptState) || freshJson,
      },
      state,
    );
  }

  /** Runs one store operation (see `RedisConnection.call`). */
  private call<T>(
    operation: string,
    key: SessionKey,
    signal: AbortSignal | undefined,
    command: () => Promise<T>,
  ): Promise<T> {
    return this.connection.call(operation, key, command, signal);
  }

  private run(script: LuaScript, keys: string[], args: Array<string | number>): Promise<unknown> {
    return this.connection.run(script, keys, args);
  }

  /** ioredis prefixes the declared keys of a script with its `keyPrefix`; keys built inside Lua need it too. */
  private clientKeyPrefix(): string {
    return (this.client.options as { keyPrefix?: string }).keyPrefix ?? '';
  }
}

function positiveInteger(field: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0)
    throw new ConfigError(`${field} must be a positive integer, got ${String(value)}.`, { field });
  return value;
}

function decodeCursor(cursor: string): string {
  const match = CURSOR.exec(cursor);
  if (match)
    try {
      return unescapeKeyPart(match[1] as string);
    } catch {
      // reported below
    }
  throw invalidCursor(cursor);
}

/** Throws the error a script's refusal stands for ('BUSY', 'LOST', 'CORRUPT'); other replies pass. */
function throwRefusal(reply: Reply, key: SessionKey, token?: number): void {
  const [status, a, b] = reply;
  if (status === 'BUSY') throw new SessionBusyError(key, String(a), Number(b));
  if (status === 'LOST') throw new LeaseLostError(key, token as number, String(a));
  if (status === 'CORRUPT') throw new StoreDataError(key, String(a));
}

function toGrant(reply: Reply): LeaseGrant {
  return { token: Number(reply[1]), owner: String(reply[2]), expiresAt: Number(reply[3]) };
}

/** A row of the LIST script: member, kind ('ok' | 'wrongtype'), version, createdAt, updatedAt, metadata. */
type ListRow = [string, string, ...Array<string | null>];

/** The summary of a listed session, or why it is skipped. */
function listEntry(
  userId: string,
  agentId: string,
  row: ListRow,
): SessionSummary | SessionPage['skipped'][number] {
  const [member, kind, v, c, u, m] = row;
  const escapedId = member.slice(member.indexOf(':') + 1);
  let key: SessionKey = { userId, agentId, sessionId: escapedId };
  try {
    try {
      key = { userId, agentId, sessionId: unescapeKeyPart(escapedId) };
    } catch {
      throw new StoreDataError(key, `its index entry ${JSON.stringify(member)} is not an escaped id.`);
    }
    if (kind === 'wrongtype') throw new StoreDataError(key, WRONG_TYPE);
    return parseSummary(key, { v, c, u, m });
  } catch (error) {
    if (!(error instanceof StoreDataError)) throw error;
    return { sessionId: key.sessionId, reason: error.message };
  }
}

function parseSummary(key: SessionKey, f: Fields): SessionSummary {
  let metadata: unknown;
  try {
    metadata = JSON.parse(f.m ?? '');
  } catch (cause) {
    throw new StoreDataError(key, 'its metadata is not valid JSON.', { cause });
  }
  return parseStoredSummary(key, { version: f.v ?? undefined, createdAt: f.c, updatedAt: f.u, metadata });
}

/** Validates a stored record; `state`, when given, is the state just written (not parsed again). */
function parseRecord(key: SessionKey, f: Fields, state?: AgentState): SessionRecord {
  const summary = parseSummary(key, f);
  return { ...summary, state: state ?? parseStoredState(key, f.s ?? undefined) };
}
