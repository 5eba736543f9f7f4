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

/** Options every store method takes. */
export interface CallOptions {
  /**
   * Gives up waiting: the call rejects with the signal's reason. A write whose command already reached
   * the backend may still take effect; reload to know.
   */
  signal?: AbortSignal;
}

/** Options of a write. */
export interface WriteOptions extends CallOptions {
  /**
   * The version the writer loaded. The write fails with `VersionConflictError` when the stored version
   * differs (`0` means "must not exist yet"). Omit for last-writer-wins.
   */
  expectedVersion?: number;
  /**
   * The fencing token of the writer's lease ({@link LeaseGrant.token}). The write is accepted only while
   * that lease is the session's current, unexpired one; otherwise it fails with `LeaseLostError` and
   * writes nothing. A write without a token fails with `SessionBusyError` while anyone holds a lease.
   */
  leaseToken?: number;
}

/** Options of {@link SessionStore.acquireLease}. */
export interface LeaseOptions extends CallOptions {
  /** How long the lease lasts unless renewed, in ms (≥ 100). Default 30 000. */
  ttlMs?: number;
  /** Who holds it, for diagnostics (`SessionBusyError.owner`). Default: a random id. */
  owner?: string;
}

/**
 * A granted session lease. `token` is the fencing token: it only grows for a session (every grant gets a
 * larger one than all before it), so a store can tell a stale holder from the current one.
 */
export interface LeaseGrant {
  token: number;
  owner: string;
  /** When the lease ends unless renewed (ms since the epoch, by the store's clock). */
  expiresAt: number;
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
 * - A write serialises the state and metadata before it returns control (before its first `await`), so the
 *   caller may go on changing its objects while the write is in flight.
 * - Leases: at most one holder per session at a time. A write under a lease (`leaseToken`) is fenced: it
 *   takes effect only while that lease is current and unexpired, atomically with the check. A write
 *   without a token while another holder's lease is live fails with `SessionBusyError`; a stale token
 *   fails with `LeaseLostError`. Either way nothing is written.
 * - `listSessions` never fails because of one bad record: records it cannot parse are left out of
 *   `sessions` and named in `skipped`.
 * - Every method takes an `AbortSignal` (`options.signal`) and rejects with its reason when aborted.
 */
export interface SessionStore {
  /**
   * The record, or `null` when it does not exist. Throws `InvalidInputError` for a bad id and
   * `StoreDataError` for a corrupt record.
   */
  getSession(
    userId: string,
    agentId: string,
    sessionId: string,
    options?: CallOptions,
  ): Promise<SessionRecord | null>;
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
   * pages makes the later pages neither repeat nor skip the others. `limit` defaults to 50 (a store may
   * cap it). Records that cannot be parsed are never listed; each is named in `skipped` on one page of
   * the listing (where depends on the store), so a listing always completes. Throws `InvalidInputError`
   * for bad ids, a `limit` that is not a positive integer, or a foreign cursor.
   */
  listSessions(userId: string, agentId: string, options?: ListOptions): Promise<SessionPage>;
  /**
   * Deletes the session; `false` when it did not exist. Throws `InvalidInputError` for a bad id and
   * `SessionBusyError` / `LeaseLostError` as every write does. The lease (and its token count) survives,
   * so a stale holder can never write into a session created again under the same id.
   */
  deleteSession(
    userId: string,
    agentId: string,
    sessionId: string,
    options?: Omit<WriteOptions, 'expectedVersion'>,
  ): Promise<boolean>;
  /**
   * Takes the session's lease for `ttlMs`: a grant with a fencing token larger than every earlier one.
   * Throws `SessionBusyError` when another holder's lease is live. The session need not exist (a lease may
   * guard its creation). Most callers use {@link SessionLease.acquire}, which renews and releases.
   */
  acquireLease(
    userId: string,
    agentId: string,
    sessionId: string,
    options?: LeaseOptions,
  ): Promise<LeaseGrant>;
  /**
   * Extends a held lease by `ttlMs` from now (same token). Throws `LeaseLostError` when `token` is not the
   * session's current, unexpired lease.
   */
  renewLease(
    userId: string,
    agentId: string,
    sessionId: string,
    token: number,
    options?: Omit<LeaseOptions, 'owner'>,
  ): Promise<LeaseGrant>;
  /** Ends a held lease at once; `false` (and no change) when `token` is no longer the current lease. */
  releaseLease(
    userId: string,
    agentId: string,
    sessionId: string,
    token: number,
    options?: CallOptions,
  ): Promise<boolean>;
  /** The live lease of the session, or `null` when nobody holds one (never held, released or expired). */
  getLease(
    userId: string,
    agentId: string,
    sessionId: string,
    options?: CallOptions,
  ): Promise<LeaseGrant | null>;
}

/** Options of {@link SessionStore.listSessions}. */
export interface ListOptions extends CallOptions {
  limit?: number;
  cursor?: string | null;
}

/** One page of {@link SessionStore.listSessions}. */
export interface SessionPage {
  sessions: SessionSummary[];
  /** Pass back for the next page; `null` when there is none. */
  cursor: string | null;
  /** Records of this page that could not be parsed, with the reason (`StoreDataError`'s message). */
  skipped: Array<{ sessionId: string; reason: string }>;
}
