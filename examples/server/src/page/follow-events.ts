import type { LogEvent } from '@agentkit/server';
import { ApiError } from './api-error';
import { readSse } from './read-sse';

/** Whether the page hears the server: `live`, or `reconnecting` after a dropped or failed connection. */
export type ConnectionState = 'live' | 'reconnecting';

/** Options of {@link followEvents}. */
export interface FollowEventsOptions {
  /** The session's events URL (`…/events`, possibly with `?after=`). */
  url: string;
  /** Resume after this event id (sent as `Last-Event-ID`); default: what `url` says. */
  lastEventId?: string | null;
  signal: AbortSignal;
  onEvent(event: LogEvent, id: string | undefined): void;
  onConnection(state: ConnectionState): void;
  /** Wait before the n-th retry in a row (from 0). Default 500 ms doubling up to 5 s. */
  retryDelayMs?: (attempt: number) => number;
}

/**
 * Follows a session's events until the server ends the stream between runs (no reply running). A dropped
 * or failed connection is retried with the last event id seen as `Last-Event-ID`, so the page gets
 * exactly what it missed; `onConnection('reconnecting')` says so meanwhile. Resolves with the last event
 * id when done or aborted; rejects with an {@link ApiError} when the server refuses (a deleted session).
 */
export async function followEvents(options: FollowEventsOptions): Promise<string | null> {
  const { signal } = options;
  const delay = options.retryDelayMs ?? ((n) => Math.min(5_000, 500 * 2 ** n));
  let lastId = options.lastEventId ?? null;
  let lastType: string | undefined;
  for (let attempt = 0; !signal.aborted; ) {
    let received = 0;
    let endedCleanly = false;
    try {
      const url = new URL(options.url, location.href);
      if (lastId !== null) url.searchParams.delete('after');
      const response = await fetch(url, {
        headers: { Accept: 'text/event-stream', ...(lastId !== null ? { 'Last-Event-ID': lastId } : {}) },
        cache: 'no-store',
        signal,
      });
      if (!response.ok || !response.body) throw await ApiError.from(response);
      options.onConnection('live');
      attempt = 0;
      for await (const message of readSse(response.body)) {
        const event = JSON.parse(message.data) as LogEvent;
        if (message.id !== undefined) lastId = message.id;
        lastType = event.type;
        received++;
        options.onEvent(event, message.id);
      }
      endedCleanly = true;
    } catch (error) {
      if (signal.aborted) break;
      if (error instanceof ApiError && error.status < 500) throw error;
    }
    // The server ends a stream when no reply runs; a stream cut mid-run (a proxy, a restart) is resumed.
    if (endedCleanly && (received === 0 || lastType === 'RUN_END')) break;
    options.onConnection('reconnecting');
    await sleep(delay(attempt++), signal);
  }
  return lastId;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
