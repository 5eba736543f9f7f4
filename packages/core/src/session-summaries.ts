import type { SessionKey } from './errors/store-errors';
import type { JSONObject } from './json';
import type { SessionSummary } from './session-store';
import { invalidCursor } from './session-store-checks';

/**
 * The summary a write leaves, for {@link SessionStore} implementations that keep records themselves:
 * version 1 and `createdAt = updatedAt = now` for a new session, else the next version with `createdAt`
 * kept. `metadata` replaces the stored metadata when given (a new session gets `{}` otherwise).
 */
export function nextSessionSummary(
  key: SessionKey,
  current: SessionSummary | null,
  metadata?: JSONObject,
  now: string = new Date().toISOString(),
): SessionSummary {
  return {
    userId: key.userId,
    agentId: key.agentId,
    sessionId: key.sessionId,
    version: (current?.version ?? 0) + 1,
    createdAt: current?.createdAt ?? now,
    updatedAt: now,
    metadata: metadata ?? current?.metadata ?? {},
  };
}

/**
 * One page of a listing, for stores that list by reading every summary of a user–agent pair: the
 * summaries newest `createdAt` first (ties by session id, descending), `limit` of them after the one the
 * cursor names, and the cursor of the next page (`null` after the last). Cursors are opaque text that
 * names a position, so sessions created or deleted between pages neither repeat nor are skipped; a
 * cursor this function did not make gives `InvalidInputError`. Sorts `summaries` in place.
 */
export function pageSessionSummaries(
  summaries: SessionSummary[],
  limit: number,
  cursor: string | null,
): { sessions: SessionSummary[]; cursor: string | null } {
  const after = cursor === null ? null : decodeCursor(cursor);
  summaries.sort(newestFirst);
  const start = after ? summaries.findIndex((s) => newestFirst(s, after) > 0) : 0;
  const page = start < 0 ? [] : summaries.slice(start, start + limit);
  const last = page[page.length - 1];
  const more = start >= 0 && start + limit < summaries.length;
  return { sessions: page, cursor: more && last ? encodeCursor(last) : null };
}

interface Position {
  createdAt: string;
  sessionId: string;
}

function newestFirst(a: Position, b: Position): number {
  if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
  if (a.sessionId === b.sessionId) return 0;
  return a.sessionId < b.sessionId ? 1 : -1;
}

const CURSOR_PREFIX = 'p1.';

function encodeCursor(s: Position): string {
  return `${CURSOR_PREFIX}${encodeURIComponent(JSON.stringify([s.createdAt, s.sessionId]))}`;
}

function decodeCursor(cursor: string): Position {
  if (cursor.startsWith(CURSOR_PREFIX)) {
    try {
      const value: unknown = JSON.parse(decodeURIComponent(cursor.slice(CURSOR_PREFIX.length)));
      if (Array.isArray(value) && typeof value[0] === 'string' && typeof value[1] === 'string')
        return { createdAt: value[0], sessionId: value[1] };
    } catch {
      // reported below
    }
  }
  throw invalidCursor(cursor);
}
