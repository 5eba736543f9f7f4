import type { SessionKey } from '@agentkit/core';
import type { Context } from 'hono';
import { type SSEStreamingApi, streamSSE } from 'hono/streaming';
import type { EventLog, LogEntry, LogEvent } from './event-log';
import { compareLogIds, parseLogId } from './log-ids';

/** Options of {@link followLog}. */
export interface FollowOptions {
  log: EventLog;
  session: SessionKey;
  /** Send the entries after this id (`null`: from the oldest kept). */
  after: string | null;
  /** True for the entry after which the stream ends (e.g. the `RUN_END` of the run followed). */
  isLast: (entry: LogEntry) => boolean;
  /**
   * Asked when the stream has caught up and the last entry was a `RUN_END` (or there was none): `true`
   * ends it (no run goes on).
   */
  idle?: () => Promise<boolean>;
  /**
   * Asked while the stream is caught up in the middle of a run (its last entry was no `RUN_END`), at most
   * once per `heartbeatMs`: `true` when no process runs the reply any more (its process was killed, or
   * could not log the run's end), and the stream ends once it has sent all the log holds — it would wait
   * for a `RUN_END` that never comes. Only for runners that do not continue such a run elsewhere (the
   * in-process runner; a queue hands it to another worker). Default: never.
   */
  orphaned?: () => Promise<boolean>;
  /**
   * Asked after an `isLast` entry: the stream ends once it is `true`, or after 2 s. A run logs its
   * `RUN_END` before it releases the session's lease, and a client acting on the end at once (resuming a
   * pause) must not find the session busy. (Not asked before: a queued run may not hold the lease yet.)
   */
  settled?: () => Promise<boolean>;
  /** A comment line is sent after this long without an entry, so proxies keep the stream open. */
  heartbeatMs: number;
  /** Events sent first, without an id (e.g. a snapshot standing in for entries the log no longer has). */
  prelude?: LogEvent[];
  /** The server shuts down: send what the log holds, then end (clients reconnect elsewhere). */
  shutdown?: AbortSignal;
  /** Told when the stream starts and ends (for a clean shutdown). */
  track?: (ended: Promise<void>) => void;
  /**
   * Told why a stream ended early (the log or the store failed while following; the client reconnects
   * with `Last-Event-ID`). Default: the error goes to `console.error`.
   */
  onError?: (error: unknown) => void;
  /**
   * How an entry (or a prelude event, which has no id) is written: the SSE messages to send for it, none
   * to skip it. Default: one message, `id: <entry id>` and `data: <event JSON>`. Lets a route speak
   * another protocol over the same log (e.g. the AI SDK's UI message stream, AG-UI).
   */
  render?: (entry: { id?: string; event: LogEvent }) => SseMessage[];
}

/** One Server-Sent Event message. */
export interface SseMessage {
  id?: string;
  data: string;
}

const asLogEvent = (entry: { id?: string; event: LogEvent; json?: string }): SseMessage[] => [
  { ...(entry.id !== undefined ? { id: entry.id } : {}), data: entry.json ?? JSON.stringify(entry.event) },
];

const PAGE = 256;
/** First wait before asking again whether a run holds the session, doubling up to the heartbeat. */
const IDLE_POLL_MS = 50;
/** Longest wait for `settled` after the last entry (another run may have taken the session already). */
const LAST_IDLE_WAIT_MS = 2_000;

/**
 * Streams a session's log as Server-Sent Events: each entry as `id: <entry id>` and `data: <event JSON>`,
 * read from the log (so whatever a client sees was appended first, and `Last-Event-ID` resumes exactly
 * after it), live entries as they are appended, a heartbeat comment while nothing happens. A client that
 * disconnects stops only its own stream, never the reply.
 */
export function followLog(c: Context, options: FollowOptions): Response {
  const { log, session, isLast, idle, orphaned, heartbeatMs } = options;
  const render = options.render ?? asLogEvent;
  c.header('Cache-Control', 'no-cache, no-transform');
  c.header('X-Accel-Buffering', 'no'); // nginx: do not buffer the stream
  return streamSSE(c, async (stream) => {
    const closed = new AbortController();
    stream.onAbort(() => closed.abort());
    let ended!: () => void;
    options.track?.(new Promise<void>((resolve) => (ended = resolve)));
    try {
      await pump(stream, closed.signal);
    } catch (error) {
      if (!options.onError) throw error;
      options.onError(error);
    } finally {
      ended();
    }
  });

  async function pump(stream: SSEStreamingApi, clientGone: AbortSignal): Promise<void> {
    const stop = options.shutdown ? AbortSignal.any([clientGone, options.shutdown]) : clientGone;
    await stream.write('retry: 1000\n\n');
    for (const event of options.prelude ?? []) for (const m of render({ event })) await stream.writeSSE(m);
    let after = options.after;
    let betweenRuns = true; // nothing sent yet, or the last entry ended a run
    let lastWrite = Date.now();
    let idlePollMs = IDLE_POLL_MS;
    let orphanCheckAt = 0; // when to ask next whether the run followed still runs anywhere
    // The newest id the log named before the read below, and whether the last wait ended early (the log
    // said something came): a log whose newest entries cannot be read (corrupt, skipped by `read`) must
    // not make the follower ask again and again (with Redis, a hot loop that never ends).
    let seenLast: string | null = null;
    let wokeEarly = false;
    // A position older than what the log keeps means entries were dropped unread: say so, never skip them.
    let checkGap = after !== null;
    while (!clientGone.aborted) {
      if (checkGap && after !== null) {
        const dropped = log.droppedThrough ? await log.droppedThrough(session) : undefined;
        const firstId = dropped === null ? null : await log.firstId(session);
        const missed =
          dropped === undefined
            ? firstId !== null && compareLogIds(parseLogId(after), parseLogId(firstId)) < 0
            : dropped !== null && compareLogIds(parseLogId(after), parseLogId(dropped)) < 0;
        if (missed) {
          for (const m of render({ event: { type: 'STREAM_GAP', firstId } })) await stream.writeSSE(m);
          return;
        }
      }
      const entries = await log.read(session, after, PAGE);
      if (entries.length === 0) {
        // Entries up to `seenLast` were in the log before this read, and it found none: all unreadable.
        if (isNewer(seenLast, after)) after = seenLast;
        else if (wokeEarly) {
          wokeEarly = false;
          seenLast = await log.lastId(session);
          continue; // read once more: what it finds up to `seenLast` is all there is
        }
      }
      seenLast = null;
      wokeEarly = false;
      for (const entry of entries) {
        for (const m of render(entry)) await stream.writeSSE(m);
        lastWrite = Date.now();
        idlePollMs = IDLE_POLL_MS;
        after = entry.id;
        betweenRuns = entry.event.type === 'RUN_END';
        if (isLast(entry)) {
          if (options.settled) await waitUntil(options.settled, LAST_IDLE_WAIT_MS, stop);
          return;
        }
      }
      // A full page: this follower is behind, where the log's bound may overtake it.
      checkGap = entries.length === PAGE;
      if (checkGap) continue;
      if (options.shutdown?.aborted) return;
      let waitMs = heartbeatMs;
      if (betweenRuns && idle) {
        if (await idle()) {
          // Something may have been appended between the read and the idle check. Nothing newer than
          // this position (also a position past the log's end, e.g. a Last-Event-ID from the future or
          // an empty log): the stream ends, it must not spin.
          const last = await log.lastId(session);
          if (!isNewer(last, after)) return;
          seenLast = last;
          continue;
        }
        // A lease is held between runs: the run that just ended is releasing it (its RUN_END is logged
        // first) or the next run is starting. Ask again soon, not a heartbeat later.
        waitMs = Math.min(heartbeatMs, idlePollMs);
        idlePollMs = Math.min(heartbeatMs, idlePollMs * 2);
      } else if (!betweenRuns && orphaned && Date.now() >= orphanCheckAt) {
        orphanCheckAt = Date.now() + heartbeatMs;
        // A store that cannot tell (unreachable) is no reason to end: the run may still log its end.
        if (await orphaned().catch(() => false)) {
          // Nothing came after the last entry, and nothing runs the reply: its RUN_END never comes.
          const last = await log.lastId(session);
          if (!isNewer(last, after)) return;
          seenLast = last;
          continue;
        }
      }
      const waitStart = Date.now();
      await log.waitFor(session, after, waitMs, stop);
      wokeEarly = !stop.aborted && Date.now() - waitStart < waitMs;
      if (!stop.aborted && Date.now() - lastWrite >= heartbeatMs) {
        await stream.write(': ping\n\n');
        lastWrite = Date.now();
      }
    }
  }
}

/** Whether log id `id` comes after `position` (`null`: before the first entry); `false` for no id. */
function isNewer(id: string | null, position: string | null): id is string {
  if (id === null) return false;
  return position === null || compareLogIds(parseLogId(id), parseLogId(position)) > 0;
}

/**
 * Resolves once `check` is true (or fails: nothing to wait for then), `maxMs` have passed or `signal`
 * aborts; asks every 10 ms, then less often.
 */
async function waitUntil(check: () => Promise<boolean>, maxMs: number, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + maxMs;
  for (
    let pause = 10;
    !signal.aborted && !(await check().catch(() => true)) && Date.now() < deadline;
    pause = Math.min(pause * 2, 200)
  )
    await new Promise((resolve) => setTimeout(resolve, pause));
}
