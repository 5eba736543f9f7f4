import { InvalidInputError } from './errors/input-errors';
import { SessionNotFoundError, type SessionKey, VersionConflictError } from './errors/store-errors';
import type { JSONObject } from './json';
import type { SessionRecord, SessionStore, SessionSummary, WriteOptions } from './session-store';
import { SUPPORTED_AGENT_STATE_VERSIONS, createAgentState, type AgentState } from './state';

interface Entry {
  summary: SessionSummary;
  /** The state as JSON text, so the store never shares objects with its callers. */
  state: string;
}

const DEFAULT_LIST_LIMIT = 50;
const LONE_SURROGATE = /\p{Cs}/u;

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
    const key = checkKey(userId, agentId, sessionId);
    const entry = this.sessions.get(mapKey(key));
    return entry ? toRecord(entry) : null;
  }

  /** Creates the session (version 1, a fresh state when none is given) or replaces the given fields (version + 1). */
  async upsertSession(
    userId: string,
    agentId: string,
    sessionId: string,
    data: { state?: AgentState; metadata?: JSONObject } & WriteOptions = {},
  ): Promise<SessionRecord> {
    const key = checkKey(userId, agentId, sessionId);
    const expected = checkExpectedVersion(data.expectedVersion);
    const state = data.state === undefined ? undefined : serializeState(data.state);
    const metadata = data.metadata === undefined ? undefined : checkMetadata(data.metadata);
    const id = mapKey(key);
    const existing = this.sessions.get(id);
    if (expected !== undefined && expected !== (existing?.summary.version ?? 0))
      throw new VersionConflictError(key, expected, existing?.summary.version ?? null);
    const now = new Date().toISOString();
    const entry: Entry = existing
      ? {
          summary: {
            ...existing.summary,
            version: existing.summary.version + 1,
            updatedAt: now,
            metadata: metadata ?? existing.summary.metadata,
          },
          state: state ?? existing.state,
        }
      : {
          summary: { ...key, version: 1, createdAt: now, updatedAt: now, metadata: metadata ?? {} },
          state: state ?? JSON.stringify(createAgentState({ sessionId })),
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
    options: WriteOptions = {},
  ): Promise<SessionRecord> {
    const key = checkKey(userId, agentId, sessionId);
    const expected = checkExpectedVersion(options.expectedVersion);
    const json = serializeState(state);
    const id = mapKey(key);
    const existing = this.sessions.get(id);
    if (!existing) throw new SessionNotFoundError(key);
    if (expected !== undefined && expected !== existing.summary.version)
      throw new VersionConflictError(key, expected, existing.summary.version);
    const entry: Entry = {
      summary: {
        ...existing.summary,
        version: existing.summary.version + 1,
        updatedAt: new Date().toISOString(),
      },
      state: json,
    };
    this.sessions.set(id, entry);
    return toRecord(entry);
  }

  /** The sessions of a user with an agent, newest first, a page at a time (pass back `cursor`; `null` at the end). */
  async listSessions(
    userId: string,
    agentId: string,
    options: { limit?: number; cursor?: string | null } = {},
  ): Promise<{ sessions: SessionSummary[]; cursor: string | null }> {
    checkId('userId', userId);
    checkId('agentId', agentId);
    const limit = checkLimit(options.limit);
    const after = options.cursor == null ? null : decodeCursor(options.cursor);
    const mine: SessionSummary[] = [];
    for (const { summary } of this.sessions.values())
      if (summary.userId === userId && summary.agentId === agentId) mine.push(summary);
    mine.sort(newestFirst);
    const start = after ? mine.findIndex((s) => newestFirst(s, after) > 0) : 0;
    const page = start < 0 ? [] : mine.slice(start, start + limit);
    const last = page[page.length - 1];
    const more = start >= 0 && start + limit < mine.length;
    return {
      sessions: page.map((s) => structuredClone(s)),
      cursor: more && last ? encodeCursor(last) : null,
    };
  }

  /** Deletes the session; `false` when it did not exist. */
  async deleteSession(userId: string, agentId: string, sessionId: string): Promise<boolean> {
    return this.sessions.delete(mapKey(checkKey(userId, agentId, sessionId)));
  }
}

function mapKey(key: SessionKey): string {
  return JSON.stringify([key.userId, key.agentId, key.sessionId]);
}

function toRecord(entry: Entry): SessionRecord {
  return { ...structuredClone(entry.summary), state: JSON.parse(entry.state) as AgentState };
}

/** Newest `createdAt` first; equal times by session id, descending. */
function newestFirst(
  a: { createdAt: string; sessionId: string },
  b: { createdAt: string; sessionId: string },
): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  if (a.sessionId === b.sessionId) return 0;
  return a.sessionId < b.sessionId ? 1 : -1;
}

function encodeCursor(s: SessionSummary): string {
  return `m1.${encodeURIComponent(JSON.stringify([s.createdAt, s.sessionId]))}`;
}

function decodeCursor(cursor: string): { createdAt: string; sessionId: string } {
  if (typeof cursor === 'string' && cursor.startsWith('m1.')) {
    try {
      const value: unknown = JSON.parse(decodeURIComponent(cursor.slice(3)));
      if (Array.isArray(value) && typeof value[0] === 'string' && typeof value[1] === 'string')
        return { createdAt: value[0], sessionId: value[1] };
    } catch {
      // reported below
    }
  }
  throw new InvalidInputError(
    `Invalid listSessions cursor ${JSON.stringify(cursor)}: pass the cursor of the previous page or null.`,
  );
}

function checkId(name: string, id: unknown): void {
  if (typeof id !== 'string' || id === '' || LONE_SURROGATE.test(id))
    throw new InvalidInputError(
      `${name} must be a non-empty string of well-formed Unicode, got ${JSON.stringify(id) ?? String(id)}.`,
    );
}

function checkKey(userId: string, agentId: string, sessionId: string): SessionKey {
  checkId('userId', userId);
  checkId('agentId', agentId);
  checkId('sessionId', sessionId);
  return { userId, agentId, sessionId };
}

function checkExpectedVersion(v: unknown): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    throw new InvalidInputError(`expectedVersion must be an integer ≥ 0, got ${String(v)}.`);
  return v;
}

function checkLimit(limit: unknown): number {
  if (limit === undefined) return DEFAULT_LIST_LIMIT;
  if (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1)
    throw new InvalidInputError(`limit must be a positive integer, got ${String(limit)}.`);
  return limit;
}

function checkMetadata(metadata: unknown): JSONObject {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
    throw new InvalidInputError('metadata must be a JSON object.');
  try {
    return JSON.parse(JSON.stringify(metadata)) as JSONObject;
  } catch (cause) {
    throw new InvalidInputError(`metadata is not JSON-serialisable: ${(cause as Error).message}`);
  }
}

/** A cheap top-level check (the full check runs when the state is loaded into an agent), then JSON text. */
function serializeState(state: unknown): string {
  const s = state as Partial<AgentState> | null;
  if (
    typeof s !== 'object' ||
    s === null ||
    Array.isArray(s) ||
    typeof s.schemaVersion !== 'number' ||
    !SUPPORTED_AGENT_STATE_VERSIONS.includes(s.schemaVersion) ||
    typeof s.sessionId !== 'string' ||
    !Array.isArray(s.context)
  )
    throw new InvalidInputError(
      'state must be an AgentState (an object with a supported schemaVersion, a sessionId and a context array).',
    );
  try {
    return JSON.stringify(s);
  } catch (cause) {
    throw new InvalidInputError(`state is not JSON-serialisable: ${(cause as Error).message}`);
  }
}
