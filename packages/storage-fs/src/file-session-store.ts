import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, readdir, rename, unlink } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { type AgentState, AgentkitError, ConfigError, type JSONObject, type SessionKey, SessionNotFoundError, type SessionRecord, type SessionStore, type SessionSummary, StoreConnectionError, type WriteOptions, createAgentState } from '@agentkit/core';
import { checkExpectedVersion, checkListOptions, checkSessionKey, checkUpdateArgs, checkUpsertArgs, nextSessionSummary, pageSessionSummaries } from '@agentkit/core/store';
import { withFileLock } from './file-lock';
import { RECORD_SUFFIX, fileSegment } from './file-names';
import { formatRecordFile, parseRecordFile, parseSummaryFile, parseSummaryLine } from './record-file';

/** How many session files a listing reads at once. */
const LIST_CONCURRENCY = 16;
/** How much of a file a listing reads per step while looking for the end of the summary line. */
const HEAD_CHUNK = 16 * 1024;

/** The first line of a file (without its newline), or the whole file when it has none. */
async function readFirstLine(path: string): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const parts: Buffer[] = [];
    for (let position = 0; ; ) {
      const buffer = Buffer.allocUnsafe(HEAD_CHUNK);
      const { bytesRead } = await handle.read(buffer, 0, HEAD_CHUNK, position);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      const newline = chunk.indexOf(0x0a);
      if (newline >= 0) {
        parts.push(chunk.subarray(0, newline));
        break;
      }
      parts.push(chunk);
      position += bytesRead;
    }
    return Buffer.concat(parts).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** Options of {@link FileSessionStore}. */
export interface FileSessionStoreOptions {
  /** The directory holding the sessions; created on the first write. */
  directory: string;
  /** How long a write waits for another process's lock on the same session. Default 10 000 ms. */
  lockTimeoutMs?: number;
  /** A lock file older than this is considered left by a crashed writer and broken. Default 30 000 ms. */
  staleLockMs?: number;
}

/**
 * A {@link SessionStore} on the local filesystem, the embedded default when no Redis is around: one JSON
 * file per session at `directory/<user>/<agent>/<session>.json` (names escaped so that no id leaves the
 * directory or meets another's file). Writes go to a temp file that is fsynced and renamed over the
 * session file, so a crash leaves the old or the new version, never a mix. Versions are checked under a
 * per-session lock (in-process queue plus an exclusive `.lock` file across processes).
 * @example
 * const store = new FileSessionStore({ directory: '.agentkit/sessions' });
 * const record = await store.getSession('user-1', 'agent-1', 'session-1');
 */
export class FileSessionStore implements SessionStore {
  /** The absolute directory of the store. */
  readonly directory: string;
  private readonly lock: { timeoutMs: number; staleMs: number };

  constructor(options: FileSessionStoreOptions) {
    if (typeof options?.directory !== 'string' || options.directory === '')
      throw new ConfigError('FileSessionStore needs a directory.', { field: 'directory' });
    this.directory = resolve(options.directory);
    const timeoutMs = options.lockTimeoutMs ?? 10_000;
    const staleMs = options.staleLockMs ?? 30_000;
    for (const [field, value] of [
      ['lockTimeoutMs', timeoutMs],
      ['staleLockMs', staleMs],
    ] as const)
      if (!Number.isFinite(value) || value < 0)
        throw new ConfigError(`${field} must be a number ≥ 0.`, { field });
    this.lock = { timeoutMs, staleMs };
  }

  /** The session, or `null` when it does not exist. Throws `StoreDataError` for a corrupt record. */
  async getSession(userId: string, agentId: string, sessionId: string): Promise<SessionRecord | null> {
    const key = checkSessionKey(userId, agentId, sessionId);
    const text = await this.read(key);
    return text === null ? null : parseRecordFile(key, text);
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
    const metadata = metadataJson === undefined ? undefined : (JSON.parse(metadataJson) as JSONObject);
    return this.write(key, async (current) => {
      checkExpectedVersion(key, expectedVersion, current?.version ?? null);
      const summary = nextSessionSummary(key, current, metadata);
      if (stateJson !== undefined) return { summary, stateJson, state: data?.state as AgentState };
      const state = current?.state ?? createAgentState({ sessionId });
      return { summary, stateJson: JSON.stringify(state), state };
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
    const { key, stateJson, expectedVersion } = checkUpdateArgs(userId, agentId, sessionId, state, options);
    return this.write(
      key,
      async (current) => {
        if (!current) throw new SessionNotFoundError(key);
        checkExpectedVersion(key, expectedVersion, current.version);
        return { summary: nextSessionSummary(key, current), stateJson, state };
      },
      true,
    );
  }

  /** The sessions of a user with an agent, newest first, a page at a time (pass back `cursor`; `null` at the end). */
  async listSessions(
    userId: string,
    agentId: string,
    options?: { limit?: number; cursor?: string | null },
  ): Promise<{ sessions: SessionSummary[]; cursor: string | null }> {
    const { limit, cursor } = checkListOptions(userId, agentId, options);
    const dir = join(this.directory, fileSegment(userId), fileSegment(agentId));
    let names: string[];
    try {
      names = await readdir(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { sessions: [], cursor: null };
      throw fsError(error, 'listSessions');
    }
    const files = names.filter((n) => n.endsWith(RECORD_SUFFIX));
    const summaries: SessionSummary[] = [];
    const readSummary = async (name: string): Promise<void> => {
      const path = join(dir, name);
      try {
        // The summary is the first line: a listing never reads (or holds) whole states.
        const line = await readFirstLine(path);
        const sessionId = sessionIdOf(name, `${line}\n`);
        if (sessionId === null) return; // not a session file of this store
        const session = { userId, agentId, sessionId };
        summaries.push(
          parseSummaryLine(session, line) ?? parseSummaryFile(session, await readFile(path, 'utf8')),
        );
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return; // deleted meanwhile
        throw fsError(error, 'listSessions');
      }
    };
    // A few files at a time, so a large store does not run out of file descriptors.
    let next = 0;
    await Promise.all(
      Array.from({ length: Math.min(LIST_CONCURRENCY, files.length) }, async () => {
        while (next < files.length) await readSummary(files[next++] as string);
      }),
    );
    return pageSessionSummaries(summaries, limit, cursor);
  }

  /** Deletes the session; `false` when it did not exist. */
  async deleteSession(userId: string, agentId: string, sessionId: string): Promise<boolean> {
    const key = checkSessionKey(userId, agentId, sessionId);
    const file = this.file(key);
    try {
      return await withFileLock(`${file}.lock`, this.lock, async () => {
        try {
          await unlink(file);
          return true;
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
          throw error;
        }
      });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false; // the directory does not exist
      throw fsError(error, 'deleteSession');
    }
  }

  /** The path of a session's file. */
  file(key: SessionKey): string {
    return join(
      this.directory,
      fileSegment(key.userId),
      fileSegment(key.agentId),
      `${fileSegment(key.sessionId)}${RECORD_SUFFIX}`,
    );
  }

  private async read(key: SessionKey): Promise<string | null> {
    try {
      return await readFile(this.file(key), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw fsError(error, 'getSession');
    }
  }

  /**
   * Read–check–write under the session's lock: `next` sees the current record (or `null`) and returns the
   * new one; the file is replaced atomically (temp file, fsync, rename). With `stateOnly` the current
   * state is not parsed (it is about to be replaced).
   */
  private async write(
    key: SessionKey,
    next: (
      current: (SessionSummary & { state: AgentState }) | null,
    ) => Promise<{ summary: SessionSummary; stateJson: string; state: AgentState }>,
    stateOnly = false,
  ): Promise<SessionRecord> {
    const file = this.file(key);
    const dir = join(file, '..');
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      return await withFileLock(`${file}.lock`, this.lock, async (brokeStale) => {
        // A writer crashed holding this lock: its temp file is garbage (no one else writes it now).
        if (brokeStale) await removeTempFiles(dir, basename(file));
        const text = await this.read(key);
        const current =
          text === null
            ? null
            : stateOnly
              ? { ...parseSummaryFile(key, text), state: undefined as unknown as AgentState }
              : parseRecordFile(key, text);
        const { summary, stateJson, state } = await next(current);
        const tmp = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
        const handle = await open(tmp, 'wx', 0o600);
        try {
          await handle.writeFile(formatRecordFile(summary, stateJson));
          await handle.sync();
        } finally {
          await handle.close();
        }
        try {
          await rename(tmp, file);
        } catch (error) {
          await unlink(tmp).catch(() => undefined);
          throw error;
        }
        if (text === null) await syncDirectory(dir);
        return { ...summary, metadata: structuredClone(summary.metadata), state };
      });
    } catch (error) {
      throw fsError(error, 'write');
    }
  }
}

/** Removes the record temp files (`<name>.<pid>-<hex>.tmp`) of one session file; lock temp files are left alone. */
async function removeTempFiles(dir: string, name: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const entry of names) {
    const rest = entry.startsWith(`${name}.`) ? entry.slice(name.length + 1) : '';
    if (/^\d+-[0-9a-f]{8}\.tmp$/.test(rest)) await unlink(join(dir, entry)).catch(() => undefined);
  }
}

async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Not supported everywhere (e.g. Windows); the rename itself is still atomic.
  }
}

function fsError(error: unknown, operation: string): AgentkitError {
  if (AgentkitError.isInstance(error)) return error;
  return new StoreConnectionError(
    `File session store ${operation} failed: ${error instanceof Error ? error.message : String(error)}`,
    { cause: error },
  );
}

/**
 * The session id of a file in a pair's directory: decoded from its name, or read from the file when the
 * name is a hash (long ids). `null` for files that are not this store's session files.
 */
function sessionIdOf(name: string, text: string): string | null {
  const segment = name.slice(0, -RECORD_SUFFIX.length);
  if (segment.startsWith('_')) {
    try {
      const id = decodeURIComponent(segment.slice(1));
      return fileSegment(id) === segment ? id : null;
    } catch {
      return null;
    }
  }
  if (!segment.startsWith('~')) return null;
  try {
    const head = JSON.parse(text.slice(text.indexOf(':') + 1, text.indexOf('\n') - 1)) as {
      sessionId?: unknown;
    };
    if (typeof head.sessionId === 'string' && fileSegment(head.sessionId) === segment) return head.sessionId;
  } catch {
    // unreadable below
  }
  return segment; // reported as a StoreDataError (the ids in the file do not match)
}
