import { InvalidInputError } from './errors/input-errors';
import { type SessionKey, StoreDataError, VersionConflictError } from './errors/store-errors';
import { newId } from './ids';
import type { JSONObject } from './json';
import type { SessionSummary } from './session-store';
import { type AgentState, SUPPORTED_AGENT_STATE_VERSIONS, parseAgentState } from './state';

/** How many sessions `listSessions` returns when the caller gives no `limit`. */
export const DEFAULT_SESSION_LIST_LIMIT = 50;

const LONE_SURROGATE = /\p{Cs}/u;

function checkId(name: string, id: unknown): asserts id is string {
  if (typeof id !== 'string' || id === '' || LONE_SURROGATE.test(id))
    throw new InvalidInputError(
      `${name} must be a non-empty string of well-formed Unicode, got ${describeValue(id)}.`,
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
 * `cursor` a string or `null`, `signal`) and returns the page size (default
 * {@link DEFAULT_SESSION_LIST_LIMIT}, capped at `maxLimit`), the cursor (`null` for the first page) and
 * the signal. Throws `InvalidInputError`.
 */
export function checkListOptions(
  userId: unknown,
  agentId: unknown,
  options: unknown,
  maxLimit = Number.POSITIVE_INFINITY,
): { limit: number; cursor: string | null; signal: AbortSignal | undefined } {
  checkId('userId', userId);
  checkId('agentId', agentId);
  const { limit, cursor } = checkOptionsObject('listSessions options', options) as {
    limit?: unknown;
    cursor?: unknown;
  };
  if (limit !== undefined && (typeof limit !== 'number' || !Number.isSafeInteger(limit) || limit < 1))
    throw new InvalidInputError(`limit must be a positive integer, got ${describeValue(limit)}.`);
  if (cursor != null && typeof cursor !== 'string') throw invalidCursor(cursor);
  return {
    limit: Math.min(limit ?? DEFAULT_SESSION_LIST_LIMIT, maxLimit),
    cursor: cursor ?? null,
    signal: checkCallOptions(options).signal,
  };
}

/** The error for a `listSessions` cursor the store did not hand out. */
export function invalidCursor(cursor: unknown): InvalidInputError {
  return new InvalidInputError(
    `Invalid listSessions cursor ${describeValue(cursor)}: pass the cursor of the previous page or null.`,
  );
}

/** The checked options of a write. */
export interface CheckedWriteOptions {
  /** `undefined`: last writer wins. */
  expectedVersion: number | undefined;
  /** `undefined`: the writer holds no lease. */
  leaseToken: number | undefined;
  signal: AbortSignal | undefined;
}

/**
 * Checks the options of a write: `expectedVersion` an integer ≥ 0, `leaseToken` a positive integer,
 * `signal` an `AbortSignal` (each optional). Throws `InvalidInputError`, or the signal's reason when it
 * is already aborted.
 */
export function checkWriteOptions(options: unknown): CheckedWriteOptions {
  const { expectedVersion: v, leaseToken } = checkOptionsObject('write options', options) as {
    expectedVersion?: unknown;
    leaseToken?: unknown;
  };
  if (v !== undefined && (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0))
    throw new InvalidInputError(`expectedVersion must be an integer ≥ 0, got ${describeValue(v)}.`);
  return {
    expectedVersion: v as number | undefined,
    leaseToken: leaseToken === undefined ? undefined : checkLeaseToken(leaseToken),
    signal: checkCallOptions(options).signal,
  };
}

/**
 * Checks the common options of a store call (`signal`, an `AbortSignal`) and throws the signal's reason
 * when it is already aborted. Throws `InvalidInputError` for anything else.
 */
export function checkCallOptions(options: unknown): { signal: AbortSignal | undefined } {
  const { signal } = checkOptionsObject('options', options) as { signal?: unknown };
  if (signal === undefined) return { signal: undefined };
  if (!isAbortSignal(signal)) throw new InvalidInputError('options.signal must be an AbortSignal.');
  throwIfAborted(signal);
  return { signal };
}

/** Throws the signal's reason when it is aborted (a no-op without a signal). */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw signal.reason;
}

/** Checks a lease's fencing token: a positive safe integer. Throws `InvalidInputError`. */
export function checkLeaseToken(token: unknown): number {
  if (typeof token !== 'number' || !Number.isSafeInteger(token) || token < 1)
    throw new InvalidInputError(`A lease token must be a positive integer, got ${describeValue(token)}.`);
  return token;
}

/** The shortest lease a store grants, so that renewing it every third of its life stays possible. */
const MIN_LEASE_MS = 100;
/** The default lease duration. */
export const DEFAULT_LEASE_TTL_MS = 30_000;

/**
 * Checks the options of `acquireLease`/`renewLease`: `ttlMs` an integer ≥ 100 (default 30 000) and at
 * most a day, `owner` a string of 1–200 characters (default a random id), `signal`. Throws
 * `InvalidInputError`.
 */
export function checkLeaseOptions(options: unknown): {
  ttlMs: number;
  owner: string;
  signal: AbortSignal | undefined;
} {
  const { ttlMs, owner } = checkOptionsObject('lease options', options) as {
    ttlMs?: unknown;
    owner?: unknown;
  };
  if (
    ttlMs !== undefined &&
    (typeof ttlMs !== 'number' || !Number.isSafeInteger(ttlMs) || ttlMs < MIN_LEASE_MS || ttlMs > 86_400_000)
  )
    throw new InvalidInputError(
      `ttlMs must be an integer from ${MIN_LEASE_MS} to 86400000 (a day), got ${describeValue(ttlMs)}.`,
    );
  if (
    owner !== undefined &&
    (typeof owner !== 'string' || owner === '' || owner.length > 200 || LONE_SURROGATE.test(owner))
  )
    throw new InvalidInputError(
      `owner must be a string of 1 to 200 characters of well-formed Unicode, got ${describeValue(owner)}.`,
    );
  return {
    ttlMs: (ttlMs as number | undefined) ?? DEFAULT_LEASE_TTL_MS,
    owner: (owner as string | undefined) ?? `holder-${newId()}`,
    signal: checkCallOptions(options).signal,
  };
}

/** True for an `AbortSignal` (from any realm: checked by shape). */
export function isAbortSignal(value: unknown): value is AbortSignal {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as AbortSignal).aborted === 'boolean' &&
    typeof (value as AbortSignal).addEventListener === 'function'
  );
}

/** A short, safe description of any value for an error message (no throw on BigInt, cycles or symbols). */
function describeValue(value: unknown): string {
  try {
    const text = typeof value === 'bigint' ? `${value}n` : (JSON.stringify(value) ?? String(value));
    return text.length > 80 ? `${text.slice(0, 77)}...` : text;
  } catch {
    return Object.prototype.toString.call(value);
  }
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
} & CheckedWriteOptions {
  const key = checkSessionKey(userId, agentId, sessionId);
  const { state, metadata } = checkOptionsObject('upsertSession data', data) as {
    state?: unknown;
    metadata?: unknown;
  };
  const write = checkWriteOptions(data);
  return {
    key,
    stateJson: state === undefined ? undefined : serializeAgentState(state),
    metadataJson: metadata === undefined ? undefined : serializeMetadata(metadata),
    ...write,
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
): { key: SessionKey; stateJson: string } & CheckedWriteOptions {
  const key = checkSessionKey(userId, agentId, sessionId);
  const write = checkWriteOptions(options);
  return { key, stateJson: serializeAgentState(state), ...write };
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
    throw new InvalidInputError(`${what} must be an object, got ${describeValue(options)}.`);
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
