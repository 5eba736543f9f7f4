import { InvalidInputError } from './errors/input-errors';
import { type SessionKey, StoreDataError, VersionConflictError } from './errors/store-errors';
import type { JSONObject } from './json';
import type { SessionSummary } from './session-store';
import { type AgentState, SUPPORTED_AGENT_STATE_VERSIONS, parseAgentState } from './state';

/** How many sessions `listSessions` returns when the caller gives no `limit`. */
export const DEFAULT_SESSION_LIST_LIMIT = 50;

const LONE_SURROGATE = /\p{Cs}/u;

function checkId(name: string, id: unknown): asserts id is string {
  if (typeof id !== 'string' || id === '' || LONE_SURROGATE.test(id))
    throw new InvalidInputError(
      `${name} must be a non-empty string of well-formed Unicode, got ${JSON.stringify(id) ?? String(id)}.`,
    );
}

/**
 * The key of a session after checking its ids, for {@link SessionStore} implementations: every id must be
 * a non-empty string of well-formed Unicode (no lone surrogates), else `InvalidInputError`.
 */
export function checkSessionKey(userId: unknown, agentId: unknown, sessionId: unknown): SessionKey {
  checkId('userId', userId);
  checkId('agentId', agentId);
  checkId('sessionId', sessionId);
  return { userId, agentId, sessionId };
}

/**
 * Checks the arguments of `listSessions` (ids as in {@link checkSessionKey}, `limit` a positive integer,
 * `cursor` a string or `null`) and returns the page size (default {@link DEFAULT_SESSION_LIST_LIMIT},
 * capped at `maxLimit`) and the cursor (`null` for the first page). Throws `InvalidInputError`.
 */
export function checkListOptions(
  userId: unknown,
  agentId: unknown,
  options: unknown,
  maxLimit = Number.POSITIVE_INFINITY,
): { limit: number; cursor: string | null } {
  checkId('userId', userId);
  checkId('agentId', agentId);
  const { limit, cursor } = checkOptionsObject('listSessions options', options) as {
    limit?: unknown;
    cursor?: unknown;
  };
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1))
    throw new InvalidInputError(`limit must be a positive integer, got ${String(limit)}.`);
  if (cursor != null && typeof cursor !== 'string') throw invalidCursor(cursor);
  return { limit: Math.min(limit ?? DEFAULT_SESSION_LIST_LIMIT, maxLimit), cursor: cursor ?? null };
}

/** The error for a `listSessions` cursor the store did not hand out. */
export function invalidCursor(cursor: unknown): InvalidInputError {
  return new InvalidInputError(
    `Invalid listSessions cursor ${JSON.stringify(cursor) ?? String(cursor)}: pass the cursor of the previous page or null.`,
  );
}

/**
 * The expected version of a write (`undefined`: last writer wins) after checking it is an integer ≥ 0.
 * Throws `InvalidInputError`.
 */
export function checkWriteOptions(options: unknown): number | undefined {
  const { expectedVersion: v } = checkOptionsObject('write options', options) as {
    expectedVersion?: unknown;
  };
  if (v === undefined) return undefined;
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    throw new InvalidInputError(`expectedVersion must be an integer ≥ 0, got ${String(v)}.`);
  return v;
}

/**
 * Checks the arguments of `upsertSession` and serialises the data once: the key (see
 * {@link checkSessionKey}), the state and metadata as JSON text (`undefined` when not given, so the
 * stored ones are kept) and the expected version. Throws `InvalidInputError` (see
 * {@link serializeAgentState} and {@link checkWriteOptions}; metadata must be a JSON object).
 */
export function checkUpsertArgs(
  userId: unknown,
  agentId: unknown,
  sessionId: unknown,
  data: unknown,
): {
  key: SessionKey;
  stateJson: string | undefined;
  metadataJson: string | undefined;
  expectedVersion: number | undefined;
} {
  const key = checkSessionKey(userId, agentId, sessionId);
  const { state, metadata } = checkOptionsObject('upsertSession data', data) as {
    state?: unknown;
    metadata?: unknown;
  };
  const expectedVersion = checkWriteOptions(data);
  return {
    key,
    stateJson: state === undefined ? undefined : serializeAgentState(state),
    metadataJson: metadata === undefined ? undefined : serializeMetadata(metadata),
    expectedVersion,
  };
}

/**
 * Checks the arguments of `updateSessionState`: the key (see {@link checkSessionKey}), the state as JSON
 * text (see {@link serializeAgentState}) and the expected version (see {@link checkWriteOptions}).
 * Throws `InvalidInputError`.
 */
export function checkUpdateArgs(
  userId: unknown,
  agentId: unknown,
  sessionId: unknown,
  state: unknown,
  options: unknown,
): { key: SessionKey; stateJson: string; expectedVersion: number | undefined } {
  const key = checkSessionKey(userId, agentId, sessionId);
  const expectedVersion = checkWriteOptions(options);
  return { key, stateJson: serializeAgentState(state), expectedVersion };
}

/**
 * The JSON text of a state to store, after a cheap top-level check (an object with a supported
 * `schemaVersion`, a `sessionId` and a `context` array; the full check runs when it is loaded). Throws
 * `InvalidInputError` for anything else, including a state `JSON.stringify` rejects (cycles, BigInt).
 */
export function serializeAgentState(state: unknown): string {
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
  return toJson('state', s);
}

function serializeMetadata(metadata: unknown): string {
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
    throw new InvalidInputError('metadata must be a JSON object.');
  return toJson('metadata', metadata);
}

function toJson(what: string, value: unknown): string {
  try {
    return JSON.stringify(value);
  } catch (cause) {
    throw new InvalidInputError(`${what} is not JSON-serialisable: ${(cause as Error).message}`);
  }
}

function checkOptionsObject(what: string, options: unknown): object {
  if (options === undefined) return {};
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new InvalidInputError(
      `${what} must be an object, got ${JSON.stringify(options) ?? String(options)}.`,
    );
  return options;
}

/**
 * Throws `VersionConflictError` when a write expected a version (`0`: the session must not exist) other
 * than the stored one (`null`: the session does not exist). Call it under the store's lock or transaction.
 */
export function checkExpectedVersion(
  key: SessionKey,
  expected: number | undefined,
  stored: number | null,
): void {
  if (expected !== undefined && expected !== (stored ?? 0))
    throw new VersionConflictError(key, expected, stored);
}

/**
 * Validates the fields of a stored summary and returns them as a {@link SessionSummary} of `key`: a
 * version that is a positive integer (or its decimal text, for stores that keep text), ISO timestamps and
 * a metadata object. Throws `StoreDataError` naming the session.
 */
export function parseStoredSummary(
  key: SessionKey,
  fields: { version?: unknown; createdAt?: unknown; updatedAt?: unknown; metadata?: unknown },
): SessionSummary {
  const { createdAt, updatedAt, metadata } = fields;
  const version =
    typeof fields.version === 'string' && /^[1-9]\d{0,15}$/.test(fields.version)
      ? Number(fields.version)
      : fields.version;
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1)
    throw new StoreDataError(
      key,
      `its version ${JSON.stringify(fields.version ?? null)} is not a positive integer.`,
    );
  for (const [name, value] of [
    ['createdAt', createdAt],
    ['updatedAt', updatedAt],
  ] as const)
    if (typeof value !== 'string' || Number.isNaN(Date.parse(value)))
      throw new StoreDataError(key, `its ${name} ${JSON.stringify(value ?? null)} is not a timestamp.`);
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))
    throw new StoreDataError(key, 'its metadata is not a JSON object.');
  return {
    userId: key.userId,
    agentId: key.agentId,
    sessionId: key.sessionId,
    version,
    createdAt: createdAt as string,
    updatedAt: updatedAt as string,
    metadata: metadata as JSONObject,
  };
}

/**
 * Loads a stored state (JSON text or a parsed value) with `parseAgentState`, reporting a bad one as a
 * `StoreDataError` naming the session (`undefined`: the record has no state).
 */
export function parseStoredState(key: SessionKey, state: unknown): AgentState {
  if (state === undefined) throw new StoreDataError(key, 'it has no state.');
  try {
    return parseAgentState(state);
  } catch (cause) {
    throw new StoreDataError(key, (cause as Error).message, { cause });
  }
}
