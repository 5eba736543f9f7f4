import { AgentkitError } from './agentkit-error';

/** Identifies one session in a store. */
export interface SessionKey {
  userId: string;
  agentId: string;
  sessionId: string;
}

function describe(key: SessionKey): string {
  return `session '${key.sessionId}' (user '${key.userId}', agent '${key.agentId}')`;
}

/** `updateSessionState` was called for a session that does not exist. */
export class SessionNotFoundError extends AgentkitError {
  /** The missing session. */
  readonly session: SessionKey;
  constructor(session: SessionKey) {
    super('SESSION_NOT_FOUND', `The ${describe(session)} was not found.`);
    this.session = session;
  }
}

/** A write carried an expected version, and someone else wrote first. Nothing was written. */
export class VersionConflictError extends AgentkitError {
  /** The session written to. */
  readonly session: SessionKey;
  /** The version the writer expected. */
  readonly expectedVersion: number;
  /** The version in the store (`null` when the session does not exist). */
  readonly actualVersion: number | null;
  constructor(session: SessionKey, expectedVersion: number, actualVersion: number | null) {
    super(
      'VERSION_CONFLICT',
      `The ${describe(session)} is at version ${actualVersion ?? 'none'}, not ${expectedVersion}: another writer saved first. Reload and retry.`,
    );
    this.session = session;
    this.expectedVersion = expectedVersion;
    this.actualVersion = actualVersion;
  }
}

/** A stored record failed validation (corrupt JSON, wrong shape, unsupported version). */
export class StoreDataError extends AgentkitError {
  /** The session whose record is bad. */
  readonly session: SessionKey;
  constructor(session: SessionKey, reason: string, options?: { cause?: unknown | undefined }) {
    super('STORE_DATA', `The stored record of the ${describe(session)} is invalid: ${reason}`, options);
    this.session = session;
  }
}

/** The store's backend could not be reached. The operation may be retried. */
export class StoreConnectionError extends AgentkitError {
  constructor(message: string, options?: { cause?: unknown | undefined }) {
    super('STORE_CONNECTION', message, options);
  }
}

/**
 * Another holder has the session's lease: nothing ran and nothing was written. Retry after `expiresAt`,
 * or wait for the holder to finish (a running reply).
 */
export class SessionBusyError extends AgentkitError {
  /** The leased session. */
  readonly session: SessionKey;
  /** Who holds the lease (as it said when acquiring), when the store knows. */
  readonly owner: string | null;
  /** When the holder's lease ends unless renewed (ms since the epoch, store clock), when known. */
  readonly expiresAt: number | null;
  constructor(session: SessionKey, owner: string | null = null, expiresAt: number | null = null) {
    super(
      'SESSION_BUSY',
      `The ${describe(session)} is busy: ${owner === null ? 'another holder' : `'${owner}'`} has its lease (one reply at a time per session).`,
    );
    this.session = session;
    this.owner = owner;
    this.expiresAt = expiresAt;
  }
}

/**
 * A lease is no longer the session's current one (it expired, was released, or another holder took the
 * session over): the operation was refused and nothing was written. Stop working on the session; its
 * stored state is whatever the current holder saved.
 */
export class LeaseLostError extends AgentkitError {
  /** The session. */
  readonly session: SessionKey;
  /** The token that is no longer current. */
  readonly token: number;
  constructor(session: SessionKey, token: number, reason = 'it expired or was taken over') {
    super(
      'LEASE_LOST',
      `The lease ${token} of the ${describe(session)} is no longer held (${reason}); nothing was written.`,
    );
    this.session = session;
    this.token = token;
  }
}
