import type { AgentState, Msg, SessionKey } from '@agentkit/core';
import type { EventLog, LogEvent } from './event-log';

/** How far back to look for the start of the latest reply. */
const SCAN_LIMIT = 20_000;
const PAGE = 500;

/**
 * Where a client following a session's latest reply starts reading its log: after the entry before the
 * newest `REPLY_START` or `REPLY_SNAPSHOT` (a resumed reply has no new `REPLY_START`; a snapshot stands
 * for everything before it; `after: null` when that is the oldest entry). When the log no longer holds
 * it (a long reply, a restarted in-memory log), at the log's end, with `prelude`: a `REPLY_SNAPSHOT` of the
 * reply as saved in `state`, to send first. What `GET …/events` does without `Last-Event-ID`; for protocol
 * extensions that resume a reply's stream.
 * @example
 * const { after, prelude } = await latestReplyStart(server.log, session, record.state);
 * return server.follow(c, { session, after, isLast: () => false, ...(prelude ? { prelude } : {}) });
 */
export async function latestReplyStart(
  log: EventLog,
  session: SessionKey,
  state: AgentState,
): Promise<{ after: string | null; prelude?: LogEvent[] }> {
  const start = await findReplyStart(log, session);
  if (start.found) return { after: start.after };
  const after = await log.lastId(session);
  const replyId = state.reply?.id;
  const saved = replyId ? state.context.findLast((m: Msg) => m.id === replyId) : undefined;
  if (!saved) return { after };
  const snapshot: LogEvent = {
    type: 'REPLY_SNAPSHOT',
    replyId: saved.id,
    message: saved,
    createdAt: new Date().toISOString(),
  };
  return { after, prelude: [snapshot] };
}

async function findReplyStart(
  log: EventLog,
  session: SessionKey,
): Promise<{ found: true; after: string | null } | { found: false }> {
  let before: string | null = null;
  let found = false;
  for (let scanned = 0; ; ) {
    const page = await log.readBackward(session, before, PAGE);
    for (const { id, event } of page) {
      if (found) return { found: true, after: id };
      if (event.type === 'REPLY_START' || event.type === 'REPLY_SNAPSHOT') found = true;
    }
    if (page.length < PAGE) return found ? { found: true, after: null } : { found: false };
    scanned += page.length;
    if (!found && scanned >= SCAN_LIMIT) return { found: false };
    before = page[page.length - 1]!.id;
  }
}
