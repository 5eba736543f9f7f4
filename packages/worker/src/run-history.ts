import type { SessionKey } from '@agentkit/core';
import type { EventLog, RunStatus } from '@agentkit/server';

const PAGE = 200;

/** What earlier runs of a job left in the session's log. */
export interface RunHistory {
  /** A run of the job logged its `RUN_START`: clients may hold events of a process that died since. */
  started: boolean;
  /** The status of the job's `RUN_END`, when one was logged (the job is over; its process died after). */
  ended: RunStatus | null;
}

/**
 * Looks back through the session's log for the markers of a job's earlier runs. Runs of a session do
 * not overlap (one job at a time, under the lease), so the search stops at the `RUN_END` of another run,
 * or after `limit` entries.
 */
export async function runHistory(
  log: EventLog,
  session: SessionKey,
  runId: string,
  limit = 10_000,
): Promise<RunHistory> {
  let before: string | null = null;
  for (let scanned = 0; scanned < limit; ) {
    const page = await log.readBackward(session, before, PAGE);
    for (const { event } of page) {
      if (event.type === 'RUN_END')
        return event.runId === runId
          ? { started: true, ended: event.status }
          : { started: false, ended: null };
      if (event.type === 'RUN_START' && event.runId === runId) return { started: true, ended: null };
    }
    if (page.length < PAGE) break;
    scanned += page.length;
    before = page[page.length - 1]!.id;
  }
  return { started: false, ended: null };
}
