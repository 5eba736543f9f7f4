import { type SessionKey, type SessionRecord, type SessionSummary, StoreDataError } from '@agentkit/core';
import { parseStoredState, parseStoredSummary } from '@agentkit/core/store';

const HEAD = '{"record":';
const STATE = '"state":';

/**
 * The text of a version that says "no session here": written by `deleteSession`, and by a lease taken on
 * a session that does not exist. Its directory stays, so version numbers never start over.
 */
export const TOMBSTONE = '{"record":null}\n';

/**
 * The text of a session version: a valid JSON document `{"record": <summary>, "state": <state>}` whose
 * first line holds the summary and whose second line holds the state, so a listing parses only the first
 * line and a load parses the state once. `stateJson` is the state's `JSON.stringify` (never contains a
 * newline).
 */
export function formatRecordFile(summary: SessionSummary, stateJson: string): string {
  return `${HEAD}${JSON.stringify(summary)},\n${STATE}${stateJson}}\n`;
}

function fail(key: SessionKey, reason: string, cause?: unknown): never {
  throw new StoreDataError(key, reason, cause === undefined ? undefined : { cause });
}

function splitFile(
  key: SessionKey,
  text: string,
): { head: unknown; stateText: string | null; state?: unknown } {
  const newline = text.indexOf('\n');
  const first = newline < 0 ? '' : text.slice(0, newline);
  if (first.startsWith(HEAD) && first.endsWith(',')) {
    try {
      const head: unknown = JSON.parse(first.slice(HEAD.length, -1));
      const rest = text.slice(newline + 1).trimEnd();
      if (rest.startsWith(STATE) && rest.endsWith('}'))
        return { head, stateText: rest.slice(STATE.length, -1) };
    } catch {
      // fall through to the general parse (a hand-edited file)
    }
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (cause) {
    return fail(key, `the file is not valid JSON (${(cause as Error).message}).`, cause);
  }
  if (typeof doc !== 'object' || doc === null || !('record' in doc))
    return fail(key, 'the file is not an object with "record" and "state".');
  if (doc.record === null) return { head: null, stateText: null };
  if (!('state' in doc)) return fail(key, 'the file is not an object with "record" and "state".');
  return { head: doc.record, stateText: null, state: doc.state };
}

function checkSummary(key: SessionKey, head: unknown): SessionSummary {
  const h = head as Partial<SessionSummary> | null;
  if (typeof h !== 'object' || h === null || Array.isArray(h))
    return fail(key, 'its "record" is not an object.');
  if (h.userId !== key.userId || h.agentId !== key.agentId || h.sessionId !== key.sessionId)
    fail(key, `it belongs to another session (${JSON.stringify([h.userId, h.agentId, h.sessionId])}).`);
  if (typeof h.version === 'string') fail(key, `its version ${JSON.stringify(h.version)} is not a number.`);
  return parseStoredSummary(key, h);
}

/**
 * Parses and validates the summary from the first line of a version (`firstLine` without its newline):
 * `null` for a tombstone, `undefined` when the line is not laid out as {@link formatRecordFile} writes
 * it (a hand-edited file: the caller then parses the whole file).
 */
export function parseSummaryLine(key: SessionKey, firstLine: string): SessionSummary | null | undefined {
  if (firstLine === TOMBSTONE.trimEnd()) return null;
  if (!(firstLine.startsWith(HEAD) && firstLine.endsWith(','))) return undefined;
  let head: unknown;
  try {
    head = JSON.parse(firstLine.slice(HEAD.length, -1));
  } catch {
    return undefined;
  }
  return checkSummary(key, head);
}

/** Parses and validates the summary of a version (the state is not parsed); `null` for a tombstone. */
export function parseSummaryFile(key: SessionKey, text: string): SessionSummary | null {
  const { head } = splitFile(key, text);
  return head === null ? null : checkSummary(key, head);
}

/** Parses and validates a whole version, the state with core's `parseAgentState`; `null` for a tombstone. */
export function parseRecordFile(key: SessionKey, text: string): SessionRecord | null {
  const parts = splitFile(key, text);
  if (parts.head === null) return null;
  const summary = checkSummary(key, parts.head);
  return { ...summary, state: parseStoredState(key, parts.stateText ?? parts.state) };
}

/**
 * The session id named in a version's first line, without validating anything else: how a listing learns
 * the id of a session whose name is a hash (long ids). `undefined` when the line does not say.
 */
export function sessionIdInLine(firstLine: string): string | undefined {
  if (!(firstLine.startsWith(HEAD) && firstLine.endsWith(','))) return undefined;
  try {
    const head = JSON.parse(firstLine.slice(HEAD.length, -1)) as { sessionId?: unknown } | null;
    return typeof head?.sessionId === 'string' ? head.sessionId : undefined;
  } catch {
    return undefined;
  }
}
