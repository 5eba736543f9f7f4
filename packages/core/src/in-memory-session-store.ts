import type { JSONObject } from './json';
import type { SessionRecord, SessionStore, SessionSummary, WriteOptions } from './session-store';
import {
  checkExpectedVersion,
  checkListOptions,
  checkSessionKey,
  checkUpdateArgs,
  checkUpsertArgs,
} from './session-store-checks';
import { nextSessionSummary, pageSessionSummaries } from './session-summaries';
import type { SessionKey } from './errors/store-errors';
import { SessionNotFoundError } from './errors/store-errors';
import { createAgentState, type AgentState } from './state';

interface Entry {
  summary: SessionSummary;
  /** The state as JSON text, so the store never shares objects with its callers. */
  state: string;
}

/**
 * A {@link SessionStore} in the memory of the process: for tests, examples and single-process apps
 * that do not need to survive a restart. It behaves like the persistent stores (records are copied in
 * and out as JSON, versions are checked atomically, listings are paged newest first) and passes the
 * conformance suite of `@agentkit/core/testing`.
 * @example
 * const store = new InMemorySessionStore();
 * const record = await store.upsertSession('user-1', 'agent-1', 'session-1');
 * await store.updateSessionState('user-1', 'agent-1', 'session-1', agent.state, { expectedVersion: record.version });
 */
export class InMemorySessionStore implements SessionStore {
  private readonly sessions = new Map<string, Entry>();

  /** The session, or `null` when it does not exist. Throws `StoreDataError` for a corrupt record. */
  async getSession(userId: string, agentId: string, sessionId: string): Promise<SessionRecord | null> {
    const entry = this.sessions.get(mapKey(checkSessionKey(userId, agentId, sessionId)));
    return entry ? toRecord(entry) : null;
  }

  /** Creates the session (version 1, a fresh state when none is given) or replaces the given fields (version + 1). */
  async upsertSession(
    userId: string,
    agentId: string,
    sessionId: string,
    data?: { state?: AgentState; metadata?: JSONObject } & WriteOptions,
  ): Promise<SessionRecord> {
    const { key, stateJson, metadataJson, expectedVersion } = checkUpsertArgs(
      userId,
      agentId,
      sessionId,
      data,
    );
    const id = mapKey(key);
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
    const { key, stateJson, expectedVersion } = checkUpdateArgs(userId, agentId, sessionId, state, options);
    const id = mapKey(key);
    const existing = this.sessions.get(id);
    if (!existing) throw new SessionNotFoundError(key);
    checkExpectedVersion(key, expectedVersion, existing.summary.version);
    const entry: Entry = { summary: nextSessionSummary(key, existing.summary), state: stateJson };
    this.sessions.set(id, entry);
    return toRecord(entry);
  }

  /** The sessions of a user with an agent, newest first, a page at a time (pass back `cursor`; `null` at the end). */
  async listSessions(
    userId: string,
    agentId: string,
    options?: { limit?: number; cursor?: string | null },
  ): Promise<{ sessions: SessionSummary[]; cursor: string | null }> {
    const { limit, cursor } = checkListOptions(userId, agentId, options);
    const mine: SessionSummary[] = [];
    for (const { summary } of this.sessions.values())
      if (summary.userId === userId && summary.agentId === agentId) mine.push(summary);
    const page = pageSessionSummaries(mine, limit, cursor);
    return { sessions: page.sessions.map((s) => structuredClone(s)), cursor: page.cursor };
  }

  /** Deletes the session; `false` when it did not exist. */
  async deleteSession(userId: string, agentId: string, sessionId: string): Promise<boolean> {
    return this.sessions.delete(mapKey(checkSessionKey(userId, agentId, sessionId)));
  }
}

function mapKey(key: SessionKey): string {
  return JSON.stringify([key.userId, key.agentId, key.sessionId]);
}

function toRecord(entry: Entry): SessionRecord {
  return { ...structuredClone(entry.summary), state: JSON.parse(entry.state) as AgentState };
}
