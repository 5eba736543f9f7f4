import type { LogEvent } from '@agentkit/server';

/**
 * Reads an SSE response until it ends (or `until` says stop): every message with its id and parsed
 * event. Adapted from packages/server/test/helpers.ts.
 */
export async function readSse(
  response: Response,
  options: { until?: (event: LogEvent, id?: string) => boolean } = {},
): Promise<Array<{ id?: string; event: LogEvent }>> {
  const messages: Array<{ id?: string; event: LogEvent }> = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
        let id: string | undefined;
        let data = '';
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) continue;
          const colon = line.indexOf(':');
          const field = line.slice(0, colon);
          const text = line.slice(colon + 1).replace(/^ /, '');
          if (field === 'id') id = text;
          else if (field === 'data') data += text;
        }
        if (!data) continue;
        const event = JSON.parse(data) as LogEvent;
        messages.push({ ...(id ? { id } : {}), event });
        if (options.until?.(event, id)) return messages;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return messages;
}

/** `fetch` as a user (`Authorization: Bearer <user>`), JSON body. */
export function as(user: string, base: string) {
  return (path: string, init: RequestInit = {}) =>
    fetch(`${base}${path}`, {
      ...init,
      headers: {
        Authorization: `Bearer ${user}`,
        'Content-Type': 'application/json',
        ...(init.headers ?? {}),
      },
    });
}
