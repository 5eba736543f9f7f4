import { constants } from 'node:buffer';
import { lstat, readdir, stat, unlink } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import {
  type AgentState,
  AgentkitError,
  type CallOptions,
  ConfigError,
  InvalidInputError,
  type JSONObject,
  type LeaseGrant,
  LeaseLostError,
  type LeaseOptions,
  type ListOptions,
  type SessionKey,
  SessionBusyError,
  SessionNotFoundError,
  type SessionPage,
  type SessionRecord,
  type SessionStore,
  type SessionSummary,
  StoreConnectionError,
  StoreDataError,
  type WriteOptions,
  createAgentState,
} from '@agentkit/core';
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
  nextSessionSummary,
  pageSessionSummaries,
  throwIfAborted,
} from '@agentkit/core/store';
import { RECORD_SUFFIX, fileSegment } from './file-names';
import { type StoredLease, formatLease, leaseCurrent, leaseLive, parseLease } from './lease-file';
import { SELF } from './process-owner';
import { readFirstLine, readWholeFile } from './read-file-limited';
import {
  TOMBSTONE,
  formatRecordFile,
  parseRecordFile,
  parseSummaryFile,
  parseSummaryLine,
  sessionIdInLine,
} from './record-file';
import { segmentId } from './segment-id';
import { appendSlot, collectSlots, readHead } from './slot-directory';

/** Options of {@link FileSessionStore}. */
export interface FileSessionStoreOptions {
  /** The directory holding the sessions; created on the first write. */
  directory: string;
  /**
   * The largest session version the store reads or writes, in bytes. A larger stored file gives
   * `StoreDataError` (checked with `stat`, before anything is read); a larger write gives
   * `InvalidInputError` and writes nothing. Default 256 MiB; at most the longest string Node can hold.
   */
  maxRecordBytes?: number;
}

const DEFAULT_MAX_RECORD_BYTES = 256 * 1024 * 1024;
/** A lease version is one short JSON line; anything larger is not one. */
const MAX_LEASE_BYTES = 64 * 1024;
/** How many times a read starts over because the version it found was collected meanwhile. */
const MAX_VANISHED = 100;
/** How long a write keeps retrying while other writers keep winning the race (last writer wins). */
const CONTENTION_MS = 30_000;
/** The slot a version takes when none is stored yet, or when only a 0.1 single file is (its "slot 0"). */
const NO_SLOT = 0;

/** Where one session lives. */
interface SessionPaths {
  agentDir: string;
  /** The session's file-name segment (`fileSegment(sessionId)`). */
  segment: string;
  /** The session's versions. */
  sessionDir: string;
  /** The versions of its lease: beside, not inside, so the token count survives `deleteSession`. */
  leaseDir: string;
  /** The single file of storage-fs 0.1, read as version 0 and replaced by the next write. */
  legacyFile: string;
}

/** The current version of a session: slot 0 is a 0.1 single file. */
interface Head {
  slot: number;
  path: string;
}

/**
 * How much of the current version to read: the whole record, its summary, whether it is a session at
 * all (a corrupt one is), or its raw first line.
 */
type Reading = 'record' | 'summary' | 'existence' | 'line';

/** What `decide` sees of a session that exists when only its existence was read. */
const EXISTS = {} as SessionSummary;

function errno(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException | undefined)?.code;
}

const pause = () => new Promise((resolve) => setTimeout(resolve, 1 + Math.random() * 4));

/**
 * A {@link SessionStore} on the local filesystem, the embedded default when no Redis is around. Each
 * session is a directory of immutable versions, `directory/<user>/<agent>/<session>/<n>.json` (names
 * escaped so that no id leaves the directory or meets another's files); the highest `n` is current. A
 * write creates version `n + 1` with `link()`, which the kernel refuses when anyone else created it
 * first: that is the version check and the lease fence, so a writer frozen at any point (GC pause,
 * `SIGSTOP`, slow disk) can never overwrite a save acknowledged after it froze. Leases live beside the
 * session (`<session>.lease/`) in the same scheme, so they work across processes on one host with no
 * lock to break.
 * @example
 * const store = new FileSessionStore({ directory: '.agentkit/sessions' });
 * const record = await store.getSession('user-1', 'agent-1', 'session-1');
 */
export class FileSessionStore implements SessionStore {
  /** The absolute directory of the store. */
  readonly directory: string;
  /** The largest version the store reads or writes, in bytes. */
  readonly maxRecordBytes: number;

  constructor(options: FileSessionStoreOptions) {
    if (typeof options?.directory !== 'string' || options.directory === '')
      throw new ConfigError('FileSessionStore needs a directory.', { field: 'directory' });
    const max = options.maxRecordBytes ?? DEFAULT_MAX_RECORD_BYTES;
    if (!Number.isSafeInteger(max) || max < 1024 || max > constants.MAX_STRING_LENGTH)
      throw new ConfigError(
        `maxRecordBytes must be an integer from 1024 to ${constants.MAX_STRING_LENGTH} (the longest string Node can hold).`,
        { field: 'maxRecordBytes' },
      );
    this.directory = resolve(options.directory);
    this.maxRecordBytes = max;
  }

  /** The session, or `null` when it does not exist. Throws `StoreDataError` for a corrupt or oversized record. */
  async getSession(
    userId: string,
    agentId: string,
    sessionId: string,
    options?: CallOptions,
  ): Promise<SessionRecord | null> {
    const key = checkSessionKey(userId, agentId, sessionId);
    const { signal } = checkCallOptions(options);
    try {
      const { value } = await this.readCurrent(key, this.paths(key), 'record');
      throwIfAborted(signal); // a long read that was given up meanwhile
      return value as SessionRecord | null;
    } catch (error) {
      throw storeError(error, signal, key);
    }
  }

  /** Creates the session (version 1, a fresh state when none is given) or replaces the given fields (version + 1). */
  async upsertSession(
    userId: string,
    agentId: string,
    sessionId: string,
    data?: { state?: AgentState; metadata?: JSONObject } & WriteOptions,
  ): Promise<SessionRecord> {
    const { key, stateJson, metadataJson, expectedVersion, leaseToken, signal } = checkUpsertArgs(
      userId,
      agentId,
      sessionId,
      data,
    );
    const metadata = metadataJson === undefined ? undefined : (JSON.parse(metadataJson) as JSONObject);
    return this.commit(key, leaseToken, signal, stateJson === undefined ? 'record' : 'summary', (current) => {
      checkExpectedVersion(key, expectedVersion, current?.version ?? null);
      const summary = nextSessionSummary(key, current, metadata);
      if (stateJson !== undefined)
        return {
          text: formatRecordFile(summary, stateJson),
          result: { ...summary, state: data?.state as AgentState },
        };
      const state = (current as SessionRecord | null)?.state ?? createAgentState({ sessionId });
      return { text: formatRecordFile(summary, JSON.stringify(state)), result: { ...summary, state } };
    });
  }

  /** Saves the state after a reply. Throws `SessionNotFoundError` when the session does not exist. */
  async updateSessionState(
    userId: string,
    agentId: string,
    sessionId: string,
    state: AgentState,
    options?: WriteOptions,
  ): Promise<SessionRecord> {
    const { key, stateJson, expectedVersion, leaseToken, signal } = checkUpdateArgs(
      userId,
      agentId,
      sessionId,
      state,
      options,
    );
    return this.commit(key, leaseToken, signal, 'summary', (current) => {
      if (!current) throw new SessionNotFoundError(key);
      checkExpectedVersion(key, expectedVersion, current.version);
      const summary = nextSessionSummary(key, current);
      return { text: formatRecordFile(summary, stateJson), result: { ...summary, state } };
    });
  }

  /**
   * The sessions of a user with an agent, newest first, a page at a time (pass back `cursor`; `null` at
   * the end). Reads only the first line of each session's current version. Sessions that cannot be read
   * are named in `skipped` (after the readable ones, in the same pages) instead of failing the listing.
   */
  async listSessions(userId: string, agentId: string, options?: ListOptions): Promise<SessionPage> {
    const { limit, cursor, signal } = checkListOptions(userId, agentId, options);
    const agentDir = join(this.directory, fileSegment(userId), fileSegment(agentId));
    let names: string[];
    try {
      names = await readdir(agentDir);
    } catch (error) {
      if (errno(error) === 'ENOENT') return { sessions: [], cursor: null, skipped: [] };
      throw storeError(error, signal);
    }
    // A session is a directory `<segment>`, or a 0.1 file `<segment>.json`, or both while it migrates.
    const segments = new Set<string>();
    for (const name of names) {
      const segment = name.endsWith(RECORD_SUFFIX) ? name.slice(0, -RECORD_SUFFIX.length) : name;
      if (segmentId(segment) !== undefined) segments.add(segment);
    }
    const summaries: SessionSummary[] = [];
    const unreadable = new Map<SessionSummary, string>();
    const visit = async (segment: string): Promise<void> => {
      const known = segmentId(segment) ?? segment;
      try {
        const summary = await this.listedSummary(userId, agentId, agentDir, segment);
        if (summary) summaries.push(summary);
      } catch (error) {
        const bad = storeError(error, signal, { userId, agentId, sessionId: known }, true);
        if (!(bad instanceof StoreDataError)) throw bad;
        // Sorted after every readable session (an empty createdAt is the oldest), so pages stay stable.
        const sessionId = bad.session.sessionId;
        const placeholder = {
          userId,
          agentId,
          sessionId,
          version: 0,
          createdAt: '',
          updatedAt: '',
          metadata: {},
        };
        unreadable.set(placeholder, bad.message);
        summaries.push(placeholder);
      }
    };
    // A few sessions at a time, so a large store does not run out of file descriptors.
    const queue = [...segments];
    await Promise.all(
      Array.from({ length: Math.min(16, queue.length) }, async () => {
        for (let segment = queue.pop(); segment !== undefined; segment = queue.pop()) {
          throwIfAborted(signal);
          await visit(segment);
        }
      }),
    );
    const page = pageSessionSummaries(summaries, limit, cursor);
    return {
      sessions: page.sessions.filter((s) => !unreadable.has(s)),
      cursor: page.cursor,
      skipped: page.sessions.flatMap((s) => {
        const reason = unreadable.get(s);
        return reason === undefined ? [] : [{ sessionId: s.sessionId, reason }];
      }),
    };
  }

  /**
   * Deletes the session (its next version is a tombstone; older versions and a 0.1 file are removed);
   * `false` when it did not exist. A corrupt session can be deleted. The session's directory and lease
   * stay, so versions and lease tokens never start over.
   */
  async deleteSession(
    userId: string,
    agentId: string,
    sessionId: string,
    options?: Omit<WriteOptions, 'expectedVersion'>,
  ): Promise<boolean> {
    const key = checkSessionKey(userId, agentId, sessionId);
    const { leaseToken, signal } = checkWriteOptions(options);
    return this.commit<boolean>(key, leaseToken, signal, 'existence', (current) =>
      current ? { text: TOMBSTONE, result: true } : { done: false },
    );
  }

  /**
   * Takes the session's lease (`SessionBusyError` while another holder's is live; a lease whose process
   * died on this host is taken over at once). Before it returns, the session gets a new version (a hard
   * link of the current one, no copy), so no write prepared under an earlier lease can land afterwards.
   */
  async acquireLease(
    userId: string,
    agentId: string,
    sessionId: string,
    options?: LeaseOptions,
  ): Promise<LeaseGrant> {
    const key = checkSessionKey(userId, agentId, sessionId);
    const { ttlMs, owner, signal } = checkLeaseOptions(options);
    const paths = this.paths(key);
    try {
      return await this.retry(key, signal, async () => {
        const { slot, lease } = await this.readLease(key, paths);
        const now = Date.now();
        if (lease && leaseLive(lease, now)) throw new SessionBusyError(key, lease.owner, lease.expiresAt);
        // Larger than every token granted before, even when the lease directory (with the last token) was
        // removed or its file damaged: tokens grow at most one per grant, far slower than the clock in ms.
        const token = Math.max(slot + 1, (lease?.token ?? 0) + 1, now);
        const grant = { token, owner, expiresAt: now + ttlMs };
        const text = formatLease({ ...grant, released: false, ...SELF, grantedAt: now });
        const taken = await appendSlot(paths.leaseDir, slot, { text }, { signal });
        if (taken === null) return undefined;
        // Granted: finish whatever the signal says, or the lease would be held by nobody until it expires.
        try {
          await this.fence(key, paths);
        } catch (error) {
          await this.releaseLease(userId, agentId, sessionId, grant.token).catch(() => false);
          throw error;
        }
        await collectSlots(paths.leaseDir, taken);
        return grant;
      });
    } catch (error) {
      throw storeError(error, signal, key);
    }
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
    const outcome = await this.changeLease(key, token, signal, (lease) => ({
      ...lease,
      ...SELF,
      expiresAt: Date.now() + ttlMs,
    }));
    if (!outcome) throw new LeaseLostError(key, token);
    return { token, owner: outcome.owner, expiresAt: outcome.expiresAt };
  }

  /** Ends a held lease at once; `false` when `token` is no longer the current lease. */
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
    return (await this.changeLease(key, token, signal, (lease) => ({ ...lease, released: true }))) !== null;
  }

  /** The live lease of the session, or `null` (never held, released, expired, or its process died). */
  async getLease(
    userId: string,
    agentId: string,
    sessionId: string,
    options?: CallOptions,
  ): Promise<LeaseGrant | null> {
    const key = checkSessionKey(userId, agentId, sessionId);
    const { signal } = checkCallOptions(options);
    try {
      const { lease } = await this.readLease(key, this.paths(key));
      throwIfAborted(signal);
      return lease && leaseLive(lease, Date.now())
        ? { token: lease.token, owner: lease.owner, expiresAt: lease.expiresAt }
        : null;
    } catch (error) {
      throw storeError(error, signal, key);
    }
  }

  /** The directory holding a session's versions (the highest-numbered `*.json` in it is current). */
  sessionDirectory(key: SessionKey): string {
    return this.paths(key).sessionDir;
  }

  private paths(key: SessionKey): SessionPaths {
    return pathsOf(
      join(this.directory, fileSegment(key.userId), fileSegment(key.agentId)),
      fileSegment(key.sessionId),
    );
  }

  /** The current version, or `null` when the session has none (a 0.1 single file counts as slot 0). */
  private async head(paths: SessionPaths): Promise<Head | null> {
    const head = await readHead(paths.sessionDir);
    if (head) return head;
    const legacy = await stat(paths.legacyFile).catch((error: unknown) => {
      if (errno(error) === 'ENOENT') return null;
      throw error;
    });
    return legacy ? { slot: NO_SLOT, path: paths.legacyFile } : null;
  }

  /** Reads the current version as `reading` says, starting over when it is collected meanwhile. */
  private async readCurrent(
    key: SessionKey,
    paths: SessionPaths,
    reading: Reading,
  ): Promise<{ head: Head | null; value: SessionRecord | SessionSummary | string | true | null }> {
    let missing: string | undefined;
    for (let attempt = 0; attempt < MAX_VANISHED; attempt++) {
      const head = await this.head(paths);
      if (!head) return { head, value: null };
      try {
        return { head, value: await this.read(key, head.path, reading) };
      } catch (error) {
        if (errno(error) !== 'ENOENT') throw error;
        // The current version is never removed while it is current: named twice in a row and not there
        // either time, it is a link to nowhere, not a version collected under a reader. Deletable.
        if (head.path !== missing) missing = head.path;
        else if (reading === 'existence') return { head, value: true };
        else
          throw new StoreDataError(
            key,
            `its current version ${basename(head.path)} cannot be opened (a link to nothing).`,
          );
      }
    }
    throw new StoreConnectionError(
      `The current version of ${paths.sessionDir} kept vanishing while being read.`,
    );
  }

  private async read(
    key: SessionKey,
    path: string,
    reading: Reading,
  ): Promise<SessionRecord | SessionSummary | string | true | null> {
    const max = this.maxRecordBytes;
    if (reading === 'record') return parseRecordFile(key, await readWholeFile(path, max, key));
    if (reading === 'line') return readFirstLine(path, max, key);
    let line: string;
    try {
      line = await readFirstLine(path, max, key);
    } catch (error) {
      // Oversized, or a directory where a version belongs: not readable, but a session to delete.
      if (reading === 'existence' && (error instanceof StoreDataError || errno(error) === 'EISDIR'))
        return true;
      throw error;
    }
    if (reading === 'existence') return line === TOMBSTONE.trimEnd() ? null : true;
    const summary = parseSummaryLine(key, line);
    return summary !== undefined ? summary : parseSummaryFile(key, await readWholeFile(path, max, key));
  }

  /** The summary of one listed session (`null`: a tombstone or nothing), its id read from the file when hashed. */
  private async listedSummary(
    userId: string,
    agentId: string,
    agentDir: string,
    segment: string,
  ): Promise<SessionSummary | null> {
    const paths = pathsOf(agentDir, segment);
    let sessionId = segmentId(segment) as string | null;
    if (sessionId === null) {
      // A hashed name: the id is in the file (and must hash to this name).
      const probe = { userId, agentId, sessionId: segment };
      const { value: line } = await this.readCurrent(probe, paths, 'line');
      if (line === null || line === TOMBSTONE.trimEnd()) return null;
      sessionId = sessionIdInLine(line as string) ?? null;
      if (sessionId === null || fileSegment(sessionId) !== segment)
        throw new StoreDataError(probe, 'the session id inside does not match its file name.');
    }
    const { value } = await this.readCurrent({ userId, agentId, sessionId }, paths, 'summary');
    return value as SessionSummary | null;
  }

  /**
   * A write: checks the lease, reads the current version, lets `decide` check it and build the next one,
   * and appends it as version n + 1 — checking the lease again just before the final `link`. When another
   * writer appended first it starts over (so `expectedVersion` gives `VersionConflictError`, a lost lease
   * `LeaseLostError`, and a last-writer-wins write retries).
   */
  private async commit<T>(
    key: SessionKey,
    leaseToken: number | undefined,
    signal: AbortSignal | undefined,
    reading: Reading,
    decide: (
      current: (SessionSummary & { state?: AgentState }) | null,
    ) => { text: string; result: T } | { done: T },
  ): Promise<T> {
    const paths = this.paths(key);
    const fenced = () => this.checkFence(key, paths, leaseToken);
    try {
      return await this.retry(key, signal, async () => {
        await fenced();
        const { head, value } = await this.readCurrent(key, paths, reading);
        const step = decide(value === true ? EXISTS : (value as SessionSummary | null));
        if ('done' in step) return step;
        if (Buffer.byteLength(step.text) > this.maxRecordBytes)
          throw new InvalidInputError(
            `The session would take ${Buffer.byteLength(step.text)} bytes, more than the store's maxRecordBytes (${this.maxRecordBytes}); nothing was written.`,
          );
        const slot = await appendSlot(paths.sessionDir, head?.slot ?? NO_SLOT, step, {
          beforeLink: fenced,
          signal,
        });
        if (slot === null) return undefined;
        await this.collect(paths, slot, head);
        return { done: step.result };
      }).then((step) => step.done);
    } catch (error) {
      throw storeError(error, signal, key);
    }
  }

  /** Runs `attempt` until it returns a value (`undefined`: another writer won a race; try again). */
  private async retry<T>(
    key: SessionKey,
    signal: AbortSignal | undefined,
    attempt: () => Promise<T | undefined>,
  ): Promise<T> {
    const deadline = Date.now() + CONTENTION_MS;
    for (;;) {
      throwIfAborted(signal);
      const result = await attempt();
      if (result !== undefined) return result;
      if (Date.now() > deadline)
        throw new StoreConnectionError(
          `Gave up after ${CONTENTION_MS} ms: other writers kept changing session '${key.sessionId}' first.`,
        );
      await pause();
    }
  }

  /** Throws unless a write with `token` may go ahead now (see the store contract). */
  private async checkFence(key: SessionKey, paths: SessionPaths, token: number | undefined): Promise<void> {
    const { lease } = await this.readLease(key, paths);
    const now = Date.now();
    if (token === undefined) {
      if (lease && leaseLive(lease, now)) throw new SessionBusyError(key, lease.owner, lease.expiresAt);
    } else if (!lease || lease.token !== token || !leaseCurrent(lease, now))
      throw new LeaseLostError(key, token);
  }

  /** The current lease version: its slot (`0`: none yet) and the lease (`null` when none or unreadable). */
  private async readLease(
    key: SessionKey,
    paths: SessionPaths,
  ): Promise<{ slot: number; lease: StoredLease | null }> {
    let missing: number | undefined;
    for (let attempt = 0; attempt < MAX_VANISHED; attempt++) {
      const head = await readHead(paths.leaseDir);
      if (!head) return { slot: NO_SLOT, lease: null };
      try {
        const text = await readWholeFile(head.path, MAX_LEASE_BYTES, key);
        return { slot: head.slot, lease: parseLease(text) };
      } catch (error) {
        // Not a lease (too large, a FIFO, a directory, a symlink loop): counts as none.
        if (error instanceof StoreDataError || errno(error) === 'EISDIR' || errno(error) === 'ELOOP')
          return { slot: head.slot, lease: null };
        if (errno(error) !== 'ENOENT') throw error;
        // Current twice in a row and not there: a link to nothing, which counts as no lease.
        if (head.slot === missing) return { slot: head.slot, lease: null };
        missing = head.slot;
      }
    }
    throw new StoreConnectionError(
      `The current lease of ${paths.sessionDir} kept vanishing while being read.`,
    );
  }

  /** Replaces the lease `token` by `change(lease)`; `null` (nothing written) when it is not current. */
  private async changeLease(
    key: SessionKey,
    token: number,
    signal: AbortSignal | undefined,
    change: (lease: StoredLease) => StoredLease,
  ): Promise<StoredLease | null> {
    const paths = this.paths(key);
    try {
      const outcome = await this.retry(key, signal, async () => {
        const { slot, lease } = await this.readLease(key, paths);
        if (!lease || lease.token !== token || !leaseCurrent(lease, Date.now())) return { lease: null };
        const next = change(lease);
        const done = await appendSlot(paths.leaseDir, slot, { text: formatLease(next) }, { signal });
        if (done === null) return undefined;
        await collectSlots(paths.leaseDir, done);
        return { lease: next };
      });
      return outcome.lease;
    } catch (error) {
      throw storeError(error, signal, key);
    }
  }

  /**
   * Gives the session a new version with the same content (a hard link of the current one, or a
   * tombstone when there is none), so every write that was prepared against an earlier version — by a
   * holder whose lease just ended — fails its `link`.
   */
  private async fence(key: SessionKey, paths: SessionPaths): Promise<void> {
    await this.retry(key, undefined, async () => {
      const head = await this.head(paths);
      const content = head ? { linkFrom: head.path } : { text: TOMBSTONE };
      const slot = await appendSlot(paths.sessionDir, head?.slot ?? NO_SLOT, content).catch(
        async (error: unknown) => {
          // `link` refuses a directory (EPERM): one where the current version belongs is a corrupt session.
          if (head && errno(error) === 'EPERM' && (await lstat(head.path).catch(() => null))?.isDirectory())
            throw new StoreDataError(key, `its current version ${basename(head.path)} is a directory.`);
          throw error;
        },
      );
      if (slot === null) return undefined;
      await this.collect(paths, slot, head);
      return true;
    });
  }

  /** Removes what version `slot` made obsolete: older versions, dead writers' temp files, a 0.1 file. */
  private async collect(paths: SessionPaths, slot: number, previous: Head | null): Promise<void> {
    await collectSlots(paths.sessionDir, slot);
    await unlink(paths.legacyFile).catch(() => undefined);
    if (previous?.slot !== NO_SLOT) return;
    // Migrated from 0.1: its lock and temp files of this session (`<segment>.json.…`) are garbage now.
    const names = await readdir(paths.agentDir).catch(() => [] as string[]);
    const prefix = `${paths.segment}${RECORD_SUFFIX}.`;
    await Promise.all(
      names
        .filter((n) => n.startsWith(prefix))
        .map((n) => unlink(join(paths.agentDir, n)).catch(() => undefined)),
    );
  }
}

function pathsOf(agentDir: string, segment: string): SessionPaths {
  return {
    agentDir,
    segment,
    sessionDir: join(agentDir, segment),
    leaseDir: join(agentDir, `${segment}.lease`),
    legacyFile: join(agentDir, `${segment}${RECORD_SUFFIX}`),
  };
}

/**
 * The error a store method throws: the signal's reason and agentkit errors as they are; files that are
 * not laid out as this store writes them (a file where a directory belongs, a directory where a file
 * does) as `StoreDataError` naming the session; other filesystem failures as `StoreConnectionError`.
 * In a listing (`listing`), an unreadable entry (`EACCES`) is also a `StoreDataError`, so it is skipped.
 */
function storeError(
  error: unknown,
  signal: AbortSignal | undefined,
  key?: SessionKey,
  listing = false,
): unknown {
  if (signal?.aborted && error === signal.reason) return error;
  if (AgentkitError.isInstance(error)) return error;
  const message = error instanceof Error ? error.message : String(error);
  const code = errno(error);
  const layout = code === 'ENOTDIR' || code === 'EISDIR' || code === 'ELOOP';
  if (key && (layout || (listing && (code === 'EACCES' || code === 'EPERM'))))
    return new StoreDataError(key, `its files cannot be read as a session (${message}).`, { cause: error });
  return new StoreConnectionError(`File session store failed: ${message}`, { cause: error });
}
