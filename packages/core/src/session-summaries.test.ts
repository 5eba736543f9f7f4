import { describe, expect, it } from 'vitest';
import { InvalidInputError } from './errors/input-errors';
import type { SessionSummary } from './session-store';
import { nextSessionSummary, pageSessionSummaries } from './session-summaries';

const key = { userId: 'u', agentId: 'a', sessionId: 's' };

function summary(sessionId: string, createdAt: string): SessionSummary {
  return { ...key, sessionId, version: 1, createdAt, updatedAt: createdAt, metadata: {} };
}

describe('nextSessionSummary', () => {
  it('starts a new session at version 1 with empty metadata', () => {
    expect(nextSessionSummary(key, null, undefined, 'T1')).toEqual({
      ...key,
      version: 1,
      createdAt: 'T1',
      updatedAt: 'T1',
      metadata: {},
    });
  });

  it('bumps the version, keeps createdAt and the metadata unless new metadata is given', () => {
    const current = { ...summary('s', 'T1'), version: 4, metadata: { a: 1 } };
    expect(nextSessionSummary(key, current, undefined, 'T2')).toEqual({
      ...current,
      version: 5,
      updatedAt: 'T2',
    });
    expect(nextSessionSummary(key, current, { b: 2 }, 'T2').metadata).toEqual({ b: 2 });
  });
});

describe('pageSessionSummaries', () => {
  const all = () => [
    summary('b', '2026-01-01T00:00:00.000Z'),
    summary('d', '2026-01-03T00:00:00.000Z'),
    summary('a', '2026-01-01T00:00:00.000Z'),
    summary('c', '2026-01-02T00:00:00.000Z'),
  ];

  it('pages newest first, ties by session id descending, until the cursor is null', () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: ReturnType<typeof pageSessionSummaries> = pageSessionSummaries(all(), 3, cursor);
      seen.push(...page.sessions.map((s) => s.sessionId));
      cursor = page.cursor;
    } while (cursor !== null);
    expect(seen).toEqual(['d', 'c', 'b', 'a']);
  });

  it('continues after the cursor’s position even when that session is gone', () => {
    const first = pageSessionSummaries(all(), 2, null);
    expect(first.sessions.map((s) => s.sessionId)).toEqual(['d', 'c']);
    const rest = pageSessionSummaries(
      all().filter((s) => s.sessionId !== 'c'),
      2,
      first.cursor,
    );
    expect(rest).toEqual({ sessions: [all()[0], all()[2]], cursor: null });
  });

  it('rejects a cursor it did not make', () => {
    for (const bad of ['', 'x', 'p1.', 'p1.%E0', `p1.${encodeURIComponent('[1,2]')}`])
      expect(() => pageSessionSummaries(all(), 2, bad), bad).toThrow(InvalidInputError);
  });
});
