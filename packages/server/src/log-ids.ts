import { InvalidInputError } from '@agentkit/core';

const ID = /^(\d{1,15})-(\d{1,15})$/;

/**
 * A log entry id, `<ms>-<seq>` like a Redis Stream id: the time it was appended and a sequence number
 * within that millisecond. Ids compare in append order, also across restarts of an in-memory log (a new
 * process starts at a later millisecond).
 */
export interface LogId {
  ms: number;
  seq: number;
}

/** Parses an id; throws `InvalidInputError` for anything that is not `<ms>-<seq>`. */
export function parseLogId(id: string): LogId {
  const match = typeof id === 'string' ? ID.exec(id) : null;
  if (!match)
    throw new InvalidInputError(
      `Invalid event id ${JSON.stringify(String(id).slice(0, 40))}: expected '<ms>-<seq>' as sent in SSE 'id:' fields.`,
    );
  return { ms: Number(match[1]), seq: Number(match[2]) };
}

/** Orders two ids: negative when `a` came first. */
export function compareLogIds(a: LogId, b: LogId): number {
  return a.ms - b.ms || a.seq - b.seq;
}

/** The text form of an id. */
export function formatLogId(id: LogId): string {
  return `${id.ms}-${id.seq}`;
}
