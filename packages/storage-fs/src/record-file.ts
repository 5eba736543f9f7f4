import { type SessionKey, type SessionRecord, type SessionSummary, StoreDataError } from '@agentkit/core';
import { parseStoredState, parseStoredSummary } from '@agentkit/core/store';

const HEAD = '{"record":';
const STATE = '"state":';

/**
 * The text of a session file: a valid JSON document `{"record": <summary>, "state": <state>}` whose first
 * line holds the summary and whose second line holds the state, so a listing parses only the first line
 * and a load parses the state once. `stateJson` is the state's `JSON.stringify` (never contains a newline).
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
  if (typeof doc !== 'object' || doc === null || !('record' in doc) || !('state' in doc))
    return fail(key, 'the file is not an object with "record" and "state".');
  return { head: doc.record, stateText: null, state: doc.state };
}

function checkSummary(key: SessionKey, head: unknown): SessionSummary {
  const h = head as Partial<SessionSummary> | null;
  if (typeof h !== 'object' || h === null) return fail(key, 'its "record" is not an object.');
  if (h.userId !== key.userId || h.agentId !== key.agentId || h.sessionId !== key.sessionId)
    fail(key, `it belongs to another session (${JSON.stringify([h.userId, h.agentId, h.sessionId])}).`);
  if (typeof h.version === 'string') fail(key, `its version ${JSON.stringify(h.version)} is not a number.`);
  return parseStoredSummary(key, h);
}

/**
 * Parses and validates the summary from the first line of a session file (`firstLine` without its
 * newline). `undefined` when the line is not laid out as {@link formatRecordFile} writes it (a
 * hand-edited file): the caller then parses the whole file.
 */
export function parseSummaryLine(key: SessionKey, firstLine: string): SessionSummary | undefined {
  if (!(firstLine.startsWith(HEAD) && firstLine.endsWith(','))) return undefined;
  let head: unknown;
  try {
    head = JSON.parse(firstLine.slice(HEAD.length, -1));
  } catch {
    return undefined;
  }
  return checkSummary(key, head);
}

/** Parses and validates the summary of a session file (the state is not parsed). */
export function parseSummaryFile(key: SessionKey, text: string): SessionSummary {
  return checkSummary(key, splitFile(key, text).head);
}

/** Parses and validates a whole session file; the state with core's `parseAgentState`. */
export function parseRecordFile(key: SessionKey, text: string): SessionRecord {
  const parts = splitFile(key, text);
  const summary = checkSummary(key, parts.head);
  return { ...summary, state: parseStoredState(key, parts.stateText ?? parts.state) };
}
