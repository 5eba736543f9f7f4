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
 * suite from `@agentkit/core/testing` (and may build on the shared checks of `checkSessionKey` & co.).
 *
 * Contract of every method:
 * - Ids must be non-empty strings of well-formed Unicode (no lone surrogates); anything else throws
 *   `InvalidInputError` before the store is touched. Any such string is a valid id: ids containing `:`,
 *   `/`, `..`, `{`, `*` and the like never reach or collide with other sessions.
 * - Bad arguments (a state that is not an `AgentState` or not JSON-serialisable, metadata that is not a
 *   JSON object, a bad `expectedVersion`, `limit` or `cursor`) throw `InvalidInputError` and write nothing.
 * - A corrupt stored record throws `StoreDataError`; an unreachable backend throws `StoreConnectionError`
 *   (retryable).
 * - What is stored is a JSON copy: mutating an object after passing it in, or a returned record's
 *   `metadata`, never changes what is stored. The `state` of the record a write returns may however be
 *   the caller's own state object (stores need not parse back what they just wrote), so treat it as
 *   shared with the caller; records from `getSession` are always fresh.
 * - Every successful write increases `version` by one; with `expectedVersion` the check and the write are
 *   atomic (exactly one of several concurrent writers expecting the same version wins).
 */
export interface SessionStore {
  /**
   * The record, or `null` when it does not exist. Throws `InvalidInputError` for a bad id and
   * `StoreDataError` for a corrupt record.
   */
  getSession(userId: string, agentId: string, sessionId: string): Promise<SessionRecord | null>;
  /**
   * Creates or updates a session (upsert). Fields given in `data` replace the stored ones; fields
   * omitted keep their stored value (`upsertSession(u, a, s)` on an existing session only bumps
   * `version` and `updatedAt`). A new session gets `metadata` `{}` and, without a `state`, a fresh one
   * whose `sessionId` is the session's id. `createdAt` never changes after creation.
   *
   * With `expectedVersion` (`0`: the session must not exist yet) a mismatch throws
   * `VersionConflictError` and writes nothing. Throws `InvalidInputError` for bad ids or data.
   */
  upsertSession(
    userId: string,
    agentId: string,
    sessionId: string,
    data?: { state?: AgentState; metadata?: JSONObject } & WriteOptions,
  ): Promise<SessionRecord>;
  /**
   * Saves the state after a reply (metadata and `createdAt` are kept). Throws `SessionNotFoundError` when
   * the session does not exist (it is never created here), `VersionConflictError` on a stale
   * `expectedVersion`, and `InvalidInputError` for bad ids or a state that is not an `AgentState`.
   */
  updateSessionState(
    userId: string,
    agentId: string,
    sessionId: string,
    state: AgentState,
    options?: WriteOptions,
  ): Promise<SessionRecord>;
  /**
   * The agent's sessions of a user, newest `createdAt` first, a page at a time: pass the returned
   * `cursor` back for the next page (`null` when there is none). Creating or deleting sessions between
   * pages makes the later pages neither repeat nor skip the others. `limit` defaults to 50 (a store may cap it). Throws
   * `InvalidInputError` for bad ids, a `limit` that is not a positive integer, or a foreign cursor.
   */
  listSessions(
    userId: string,
    agentId: string,
    options?: { limit?: number; cursor?: string | null },
  ): Promise<{ sessions: SessionSummary[]; cursor: string | null }>;
  /** Deletes the session; `false` when it did not exist. Throws `InvalidInputError` for a bad id. */
  deleteSession(userId: string, agentId: string, sessionId: string): Promise<boolean>;
}
