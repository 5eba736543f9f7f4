import { LeaseLostError, SessionBusyError, SessionNotFoundError } from './errors/store-errors';
import type { SessionKey } from './errors/store-errors';
import type { JSONObject } from './json';
import type {
  CallOptions,
  LeaseGrant,
  LeaseOptions,
  ListOptions,
  SessionPage,
  SessionRecord,
  SessionStore,
  SessionSummary,
  WriteOptions,
} from './session-store';
import {
  checkCallOptions,
  checkExpectedVersion,
  checkLeaseOptions,
  checkLeaseToken,
  checkListOptions,
  checkSessionKey,
  checkUpdateArgs,
  checkUpsertArgs,
  checkWriteOptions,
} from './session-store-checks';
import { nextSessionSummary, pageSessionSummaries } from './session-summaries';
import { createAgentState, type AgentState } from './state';

interface Entry {
  summary: SessionSummary;
  /** The state as JSON text, so the store never shares objects with its callers. */
  state: string;
}

/** A session's lease; kept after release and deletion so tokens only grow. */
interface Lease {
  token: number;
  owner: string;
  /** `0` once released. */
  expiresAt: number;
}

/**
 * A {@link SessionStore} in the memory of the process: for tests, examples and single-process apps
 * that do not need to survive a restart. It behaves like the persistent stores (states are stored as
 * JSON and read back as copies; `updateSessionState` returns the caller's own state, as they do;
 * versions and leases are checked atomically, listings are paged newest first) and passes the
 * conformance suite of `@agentkit/core/testing`.
 * @example
 * const store = new InMemorySessionStore();
 * const record = await store.upsertSession('user-1', 'agent-1', 'session-1');
 * await store.updateSessionState('user-1', 'agent-1', 'session-1', agent.state, { expectedVersion: record.version });
 */
export class InMemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, Entry>();
  private readonly leases = new Map<string, Lease>();

  /** The session, or `null` when it does not exist. */
  async getSession(
    userId: string,
    agentId: string,
    sessionId: string,
    options?: CallOptions,
  ): Promise<SessionRecord | null> {
    const key = checkSessionKey(userId, agentId, sessionId);
    checkCallOptions(options);
    const entry = this.sessions.get(mapKey(key));
    return entry ? toRecord(entry) : null;
  }

  /** Creates the session (version 1, a fresh state when none is given) or replaces the given fields (version + 1). */
  async upsertSession(
    userId: string,
    agentId: string,
    sessionId: string,
    data?: { state?: AgentState; metadata?: JSONObject } & WriteOptions,
  ): Promise<SessionRecord> {
    const { key, stateJson, metadataJson, expectedVersion, leaseToken } = checkUpsertArgs(
      userId,
      agentId,
      sessionId,
      data,
    );
    const id = mapKey(key);
    this.checkFence(key, id, leaseToken);
    const existing = this.sessions.get(id) ?? null;
    checkExpectedVersion(key, expectedVersion, existing?.summary.version ?? null);
    const metadata = metadataJson === undefined ? undefined : (JSON.parse(metadataJson) as JSONObject);
    const entry: Entry = {
      summary: nextSessionSummary(key, existing?.summary ?? null, metadata),
      state: stateJson ?? existing?.state ?? JSON.stringify(createAgentState({ sessionId })),
    };
    this.sessions.set(id, entry);
    return toRecord(entry);
  }

  /** Saves the state after a reply. Throws `SessionNotFoundError` when the session does not exist. */
  async updateSessionState(
    userId: string,
    agentId: string,
    sessionId: string,
    state: AgentState,
    options?: WriteOptions,
  ): Promise<SessionRecord> {
    const { key, stateJson, expectedVersion, leaseToken } = checkUpdateArgs(
      userId,
      agentId,
      sessionId,
      state,
      options,
    );
    const id = mapKey(key);
    this.checkFence(key, id, leaseToken);
    const existing = this.sessions.get(id);
    if (!existing) throw new SessionNotFoundError(key);
    checkExpectedVersion(key, expectedVersion, existing.summary.version);
    const entry: Entry = { summary: nextSessionSummary(key, existing.summary), state: stateJson };
    this.sessions.set(id, entry);
    // The caller's own state, as the persistent stores return it: parsing the whole state back on every
    // checkpoint (two per tool call) cost half of a `runSession` iteration, for a copy nobody reads.
    return { ...structuredClone(entry.summary), state };
  }

  /** The sessions of a user with an agent, newest first, a page at a time (pass back `cursor`; `null` at the end). */
  async listSessions(userId: string, agentId: string, options?: ListOptions): Promise<SessionPage> {
    const { limit, cursor } = checkListOptions(userId, agentId, options);
    const mine: SessionSummary[] = [];
    for (const { summary } of this.sessions.values())
      if (summary.userId === userId && summary.agentId === agentId) mine.push(summary);
    const page = pageSessionSummaries(mine, limit, cursor);
    return { sessions: page.sessions.map((s) => structuredClone(s)), cursor: page.cursor, skipped: [] };
  }

  /** Deletes the session; `false` when it did not exist. */
  async deleteSession(
    userId: string,
    agentId: string,
    sessionId: string,
    options?: Omit<WriteOptions, 'expectedVersion'>,
  ): Promise<boolean> {
    const key = checkSessionKey(userId, agentId, sessionId);
    const { leaseToken } = checkWriteOptions(options);
    const id = mapKey(key);
    this.checkFence(key, id, leaseToken);
    return this.sessions.delete(id);
  }

  /** Takes the session's lease; `SessionBusyError` while another holder's is live. */
  async acquireLease(
    userId: string,
    agentId: string,
    sessionId: string,
    options?: LeaseOptions,
  ): Promise<LeaseGrant> {
    const key = checkSessionKey(userId, agentId, sessionId);
    const { ttlMs, owner } = checkLeaseOptions(options);
    const id = mapKey(key);
    const live = this.liveLease(id);
    if (live) throw new SessionBusyError(key, live.owner, live.expiresAt);
    const lease = { token: (this.leases.get(id)?.token ?? 0) + 1, owner, expiresAt: Date.now() + ttlMs };
    this.leases.set(id, lease);
    return { ...lease };
  }

  /** Extends a held lease; `LeaseLostError` when it is no longer current. */
  async renewLease(
    userId: string,
    agentId: string,
    sessionId: string,
    token: number,
    options?: Omit<LeaseOptions, 'owner'>,
  ): Promise<LeaseGrant> {
    const key = checkSessionKey(userId, agentId, sessionId);
    checkLeaseToken(token);
    const { ttlMs } = checkLeaseOptions(options);
    const live = this.liveLease(mapKey(key));
    if (live?.token !== token) throw new LeaseLostError(key, token);
    live.expiresAt = Date.now() + ttlMs;
    return { ...live };
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
    checkCallOptions(options);
    const live = this.liveLease(mapKey(key));
    if (live?.token !== token) return false;
    live.expiresAt = 0;
    return true;
  }

  /** The live lease, or `null`. */
  async getLease(
    userId: string,
    agentId: string,
    sessionId: string,
    options?: CallOptions,
  ): Promise<LeaseGrant | null> {
    const key = checkSessionKey(userId, agentId, sessionId);
    checkCallOptions(options);
    const live = this.liveLease(mapKey(key));
    return live ? { ...live } : null;
  }

  private liveLease(id: string): Lease | undefined {
    const lease = this.leases.get(id);
    return lease && lease.expiresAt > Date.now() ? lease : undefined;
  }

  /** Throws unless a write with `token` may go ahead (see the store contract). */
  private checkFence(key: SessionKey, id: string, token: number | undefined): void {
    const live = this.liveLease(id);
    if (token === undefined) {
      if (live) throw new SessionBusyError(key, live.owner, live.expiresAt);
    } else if (live?.token !== token) throw new LeaseLostError(key, token);
  }
}

function mapKey(key: SessionKey): string {
  return JSON.stringify([key.userId, key.agentId, key.sessionId]);
}

function toRecord(entry: Entry): SessionRecord {
  return { ...structuredClone(entry.summary), state: JSON.parse(entry.state) as AgentState };
}
