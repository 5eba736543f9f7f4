import type { SessionKey } from '@agentkit/core';
import type { EventLog } from '@agentkit/server';

/** How far back to look for the start of the latest reply. */
const SCAN_LIMIT = 20_000;
const PAGE = 500;

/**
 * Where the latest reply starts in a session's log: the entry before its newest `REPLY_START` or
 * `REPLY_SNAPSHOT` (`after: null` when that is the oldest entry), or `found: false` when the log no
 * longer holds it (a long reply, or a restarted in-memory log).
 */
export async function latestReplyStart(
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
