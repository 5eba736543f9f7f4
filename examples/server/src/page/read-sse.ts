/** One Server-Sent Event: its `id:` (absent when it was sent without one) and its `data:` lines. */
export interface SseMessage {
  id?: string;
  data: string;
}

/**
 * The events of a `text/event-stream` body as they arrive. Comments (heartbeats), `retry:` lines and
 * events without data are skipped. Stops reading the body when the caller stops iterating.
 */
export async function* readSse(body: ReadableStream<Uint8Array>): AsyncGenerator<SseMessage> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true }).replaceAll('\r\n', '\n');
      for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
        const message = parseEvent(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (message) yield message;
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

function parseEvent(block: string): SseMessage | undefined {
  let id: string | undefined;
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return undefined;
  return { ...(id !== undefined ? { id } : {}), data: data.join('\n') };
}
