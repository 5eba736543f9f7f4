import { InvalidInputError, type Logger, type SessionKey } from '@agentkit/core';
import { checkSessionKey } from '@agentkit/core/store';
import type { EventLog, LogEntry, LogEvent } from './event-log';
import { compareLogIds, formatLogId, type LogId, parseLogId } from './log-ids';

/** Options of {@link InMemoryEventLog}. */
export interface InMemoryEventLogOptions {
  /** Entries kept per session (the oldest are dropped). Default 10 000. */
  maxEntriesPerSession?: number;
  /** Sessions kept (the least recently written are dropped). Default 10 000. */
  maxSessions?: number;
  /** Where a failing `onInterrupt` listener is reported. Default `console`. */
  logger?: Logger;
}

/** The longest delay `setTimeout` takes; longer ones fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

interface SessionLog {
  entries: Array<LogEntry & { at: LogId; json: string }>;
  waiters: Set<() => void>;
  /** The latest `RUN_START`: its run's entries are kept (see `dropCount`). */
  runStart?: LogId;
  /** The id of the newest entry dropped for the bound. */
  droppedThrough?: string;
}

/**
 * An {@link EventLog} in the memory of one process: the embedded default. Bounded per session and in the
 * number of sessions. Entry ids keep growing across restarts (they start at the current millisecond), so
 * a client reconnecting after a restart with an old `Last-Event-ID` gets everything the new log has.
 */
export class InMemoryEventLog implements EventLog {
  private readonly sessions = new Map<string, SessionLog>();
  private readonly listeners = new Set<(session: SessionKey) => void>();
  private readonly maxEntries: number;
  private readonly maxSessions: number;
  private readonly logger: Logger;
  private last: LogId = { ms: 0, seq: 0 };

  constructor(options: InMemoryEventLogOptions = {}) {
    this.maxEntries = options.maxEntriesPerSession ?? 10_000;
    this.maxSessions = options.maxSessions ?? 10_000;
    this.logger = options.logger ?? console;
  }

  async append(session: SessionKey, events: readonly LogEvent[]): Promise<string[]> {
    const key = keyOf(session);
    // Copies, as JSON: what readers get is what a Redis log would give them, and later changes to the
    // caller's objects do not reach the log.
    const copies = copyEvents(events);
    let log = this.sessions.get(key);
    // Re-inserted below: the map's order is the recency of writes.
    if (log) this.sessions.delete(key);
    else log = { entries: [], waiters: new Set() };
    this.sessions.set(key, log);
    if (this.sessions.size > this.maxSessions) this.evictOldest();
    const ids: string[] = [];
    for (const { event, json } of copies) {
      const at = this.nextId();
      const id = formatLogId(at);
      if (event.type === 'RUN_START') log.runStart = at;
      log.entries.push({ id, at, event, json });
      ids.push(id);
    }
    if (log.entries.length > this.maxEntries) {
      const count = this.dropCount(log);
      if (count > 0) log.droppedThrough = log.entries[count - 1]!.id;
      log.entries.splice(0, count);
    }
    for (const wake of log.waiters) wake();
    log.waiters.clear();
    return ids;
  }

  async read(session: SessionKey, after: string | null, limit: number): Promise<LogEntry[]> {
    const entries = this.sessions.get(keyOf(session))?.entries ?? [];
    const from = after === null ? 0 : firstAfter(entries, parseLogId(after));
    return entries.slice(from, from + limit).map(({ id, event, json }) => ({ id, event, json }));
  }

  async readBackward(session: SessionKey, before: string | null, limit: number): Promise<LogEntry[]> {
    const entries = this.sessions.get(keyOf(session))?.entries ?? [];
    let end = entries.length;
    if (before !== null) {
      const bound = parseLogId(before);
      end = firstAfter(entries, bound);
      if (end > 0 && compareLogIds(entries[end - 1]!.at, bound) === 0) end--;
    }
    const out: LogEntry[] = [];
    for (let i = end - 1; i >= 0 && out.length < limit; i--)
      out.push({ id: entries[i]!.id, event: entries[i]!.event });
    return out;
  }

  async firstId(session: SessionKey): Promise<string | null> {
    return this.sessions.get(keyOf(session))?.entries[0]?.id ?? null;
  }

  async droppedThrough(session: SessionKey): Promise<string | null> {
    return this.sessions.get(keyOf(session))?.droppedThrough ?? null;
  }

  async lastId(session: SessionKey): Promise<string | null> {
    return this.sessions.get(keyOf(session))?.entries.at(-1)?.id ?? null;
  }

  async waitFor(
    session: SessionKey,
    after: string | null,
    timeoutMs: number,
    signal: AbortSignal,
  ): Promise<void> {
    const key = keyOf(session);
    const bound = after === null ? null : parseLogId(after);
    const last = this.sessions.get(key)?.entries.at(-1);
    if (last && (bound === null || compareLogIds(last.at, bound) > 0)) return;
    if (signal.aborted) return;
    return new Promise((resolve) => {
      let log = this.sessions.get(key);
      if (!log) {
        log = { entries: [], waiters: new Set() };
        this.sessions.set(key, log);
      }
      const waiting = log;
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        waiting.waiters.delete(done);
        // A log made only for waiting goes when its last waiter does, so waiting cannot grow the map.
        if (waiting.entries.length === 0 && waiting.waiters.size === 0 && this.sessions.get(key) === waiting)
          this.sessions.delete(key);
        resolve();
      };
      const timer = setTimeout(done, Math.min(timeoutMs, MAX_TIMER_MS));
      signal.addEventListener('abort', done, { once: true });
      waiting.waiters.add(done);
    });
  }

  async delete(session: SessionKey): Promise<void> {
    const log = this.sessions.get(keyOf(session));
    if (!log) return;
    log.entries.length = 0;
    for (const wake of log.waiters) wake();
    this.sessions.delete(keyOf(session));
  }

  async publishInterrupt(session: SessionKey): Promise<void> {
    keyOf(session);
    const copy = { userId: session.userId, agentId: session.agentId, sessionId: session.sessionId };
    for (const listener of this.listeners)
      try {
        listener({ ...copy });
      } catch (error) {
        this.logger.error('@agentkit/server: an onInterrupt listener failed', error);
      }
  }

  onInterrupt(listener: (session: SessionKey) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    for (const log of this.sessions.values()) for (const wake of log.waiters) wake();
    this.sessions.clear();
    this.listeners.clear();
  }

  /**
   * How many of the oldest entries to drop for the bound. The latest run's entries, and the one before
   * them (where its followers start), are kept — a reply's stream stays whole however long it is — unless
   * that run alone grows ten times past the bound.
   */
  private dropCount(log: SessionLog): number {
    const over = log.entries.length - this.maxEntries;
    if (!log.runStart) return over;
    const anchor = Math.max(0, firstAfter(log.entries, log.runStart) - 2);
    return log.entries.length - anchor > this.maxEntries * 10 ? over : Math.min(over, anchor);
  }

  private nextId(): LogId {
    const ms = Date.now();
    this.last = ms > this.last.ms ? { ms, seq: 0 } : { ms: this.last.ms, seq: this.last.seq + 1 };
    return this.last;
  }

  private evictOldest(): void {
    for (const [key, log] of this.sessions) {
      if (log.waiters.size > 0) continue; // someone follows it right now
      this.sessions.delete(key);
      return;
    }
  }
}

/** The map key of a session; throws `InvalidInputError` for ids a session store would refuse. */
function keyOf(session: SessionKey): string {
  const { userId, agentId, sessionId } = checkSessionKey(
    session?.userId,
    session?.agentId,
    session?.sessionId,
  );
  return JSON.stringify([userId, agentId, sessionId]);
}

/** JSON copies of the events; throws `InvalidInputError` unless each is a JSON object with a string `type`. */
function copyEvents(events: readonly LogEvent[]): Array<{ event: LogEvent; json: string }> {
  if (!Array.isArray(events)) throw new InvalidInputError('append: events must be an array.');
  return events.map((event, i) => {
    let json: string;
    let copy: unknown;
    try {
      json = JSON.stringify(event) ?? 'undefined';
      copy = JSON.parse(json);
    } catch (error) {
      throw new InvalidInputError(`append: event ${i} is not JSON (${(error as Error).message}).`);
    }
    if (typeof copy !== 'object' || copy === null || typeof (copy as { type?: unknown }).type !== 'string')
      throw new InvalidInputError(`append: event ${i} is not an object with a string 'type'.`);
    return { event: copy as LogEvent, json };
  });
}

/** The index of the first entry after `id` (binary search; entries are in id order). */
function firstAfter(entries: ReadonlyArray<{ at: LogId }>, id: LogId): number {
  let lo = 0;
  let hi = entries.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareLogIds(entries[mid]!.at, id) <= 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
