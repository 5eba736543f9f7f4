import type { SseMessage } from './follow-log';

/**
 * One SSE message per payload (as JSON), with the log entry's `id` on the last one only: a client that
 * reconnects with that id resumes after the whole entry. For a `FollowOptions.render` that writes one
 * log entry as several messages of another protocol.
 * @example
 * render: ({ id, event }) => toSseMessages(id, mapper.push(event))
 */
export function toSseMessages(id: string | undefined, payloads: readonly unknown[]): SseMessage[] {
  return payloads.map((payload, i) => ({
    ...(id !== undefined && i === payloads.length - 1 ? { id } : {}),
    data: JSON.stringify(payload),
  }));
}
