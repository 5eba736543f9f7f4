import type { JSONObject } from './json';
import type { AgentState } from './state';

/** A stored session. `version` increases by one with every write (optimistic concurrency). */
export interface SessionRecord {
  userId: string;
  agentId: string;
  sessionId: string;
  version: number;
  createdAt: string;
  updatedAt: string;
  /** Free-form data of the application (a title, a config). */
  metadata: JSONObject;
  state: AgentState;
}

/** A session in a listing (without its state). */
export type SessionSummary = Omit<SessionRecord, 'state'>;

/** Options of a write. */
export interface WriteOptions {
  /**
   * The version the writer loaded. The write fails with `VersionConflictError` when the stored version
   * differs (`0` means "must not exist yet"). Omit for last-writer-wins.
   */
  expectedVersion?: number;
}

/**
 * Where sessions live, keyed by (userId, agentId, sessionId). Implementations: the in-memory store in
 * core, `@agentkit/storage-redis`, `@agentkit/storage-fs`. Every implementation runs the conformance
 * suite from `@agentkit/core/testing`.
 */
export interface SessionStore {
  /** The record, or `null` when it does not exist. Throws `StoreDataError` for a corrupt record. */
  getSession(userId: string, agentId: string, sessionId: string): Promise<SessionRecord | null>;
  /**
   * Creates the session, or replaces its metadata and (when given) its state. A new session without a
   * state gets a fresh one whose `sessionId` is the session's id.
   */
  upsertSession(
    userId: string,
    agentId: string,
    sessionId: string,
    data?: { state?: AgentState; metadata?: JSONObject } & WriteOptions,
  ): Promise<SessionRecord>;
  /** Saves the state after a reply. Throws `SessionNotFoundError` when the session does not exist. */
  updateSessionState(
    userId: string,
    agentId: string,
    sessionId: string,
    state: AgentState,
    options?: WriteOptions,
  ): Promise<SessionRecord>;
  /** The agent's sessions of a user, newest first, a page at a time. */
  listSessions(
    userId: string,
    agentId: string,
    options?: { limit?: number; cursor?: string | null },
  ): Promise<{ sessions: SessionSummary[]; cursor: string | null }>;
  /** Deletes the session; `false` when it did not exist. */
  deleteSession(userId: string, agentId: string, sessionId: string): Promise<boolean>;
}
