import type { LogEvent } from '../event-log';

/** One message of an agentkit server's event stream: its id (none on a prelude event) and its parsed data. */
export interface SseEntry<E = LogEvent> {
  id?: string;
  event: E;
}

/**
 * Reads a Server-Sent Events response of an agentkit server message by message, as the messages arrive:
 * the events of `POST …/replies` (with `Accept: text/event-stream`) and `GET …/events`, or the messages
 * of a protocol route whose data is JSON (AG-UI). Each message's `data` is parsed as JSON (not
 * validated: `E` is what you expect); comments (heartbeats) are counted; `retry:` is skipped. For
 * tests: to stop a worker mid-reply, to time what arrives when.
 * @example
 * const stream = new SseReader(await fetch(`${url}/agents/ops/sessions/s1/events`));
 * const start = await stream.until((event) => event.type === 'REPLY_START');
 * // … kill the process running the reply, then:
 * await stream.until((event) => event.type === 'RUN_END');
 * await stream.cancel();
 */
export class SseReader<E = LogEvent> {
  /** Every message read so far, in order. */
  readonly messages: SseEntry<E>[] = [];
  /** How many comments (heartbeats) were read so far. */
  comments = 0;
  private readonly reader: ReadableStreamDefaultReader<string> | null;
  private buffer = '';
  private carriageReturn = '';

  constructor(response: Response) {
    this.reader = response.body?.pipeThrough(new TextDecoderStream()).getReader() ?? null;
  }

  /** The next message (also added to `messages`), or `null` once the stream has ended. */
  async next(): Promise<SseEntry<E> | null> {
    for (;;) {
      const end = this.buffer.indexOf('\n\n');
      if (end < 0) {
        const chunk = this.reader ? await this.reader.read() : { done: true as const };
        if (chunk.done) {
          if (!this.carriageReturn) return null;
          this.buffer += '\n';
          this.carriageReturn = '';
          continue;
        }
        // Lines may end with CRLF or CR too; a CR closing a chunk may be half of a CRLF: keep it back.
        const text = this.carriageReturn + chunk.value;
        this.carriageReturn = text.endsWith('\r') ? '\r' : '';
        this.buffer += text.slice(0, text.length - this.carriageReturn.length).replace(/\r\n?/g, '\n');
        continue;
      }
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const entry = this.parse(block);
      if (entry) {
        this.messages.push(entry);
        return entry;
      }
    }
  }

  /**
   * Reads up to and including the first message whose event passes `stop`, and returns it; rejects when
   * the stream ends first.
   */
  async until(stop: (event: E, id: string | undefined) => boolean): Promise<SseEntry<E>> {
    for (;;) {
      const entry = await this.next();
      if (!entry) throw new Error('The event stream ended before the awaited event.');
      if (stop(entry.event, entry.id)) return entry;
    }
  }

  /** Stops reading: cancels the response body (the server sees the client go). */
  async cancel(): Promise<void> {
    await this.reader?.cancel().catch(() => {});
  }

  /** The message of one block (`null`: a comment, or no data), per the SSE format. */
  private parse(block: string): SseEntry<E> | null {
    let id: string | undefined;
    const data: string[] = [];
    let fields = 0;
    for (const line of block.split('\n')) {
      if (line === '' || line.startsWith(':')) continue;
      fields++;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') id = value;
      else if (field === 'data') data.push(value);
    }
    if (fields === 0 && block !== '') this.comments++;
    if (data.length === 0) return null;
    const text = data.join('\n');
    let event: E;
    try {
      event = JSON.parse(text) as E;
    } catch {
      throw new Error(`An SSE message's data is not JSON: ${text.slice(0, 200)}`);
    }
    return id === undefined || id === '' ? { event } : { id, event };
  }
}

/**
 * Reads an agentkit server's SSE response (see {@link SseReader}) until it ends, or up to and including
 * the first message whose event passes `until`; then cancels the body. Returns the messages and how many
 * comments (heartbeats) came.
 * @example
 * const response = await fetch(`${url}/agents/ops/sessions/s1/replies`, {
 *   method: 'POST',
 *   headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
 *   body: JSON.stringify({ input: 'Hi!' }),
 * });
 * const { messages } = await readSse(response);
 * const message = replayEvents(agentEvents(messages)); // the reply as it was saved
 */
export async function readSse<E = LogEvent>(
  response: Response,
  options: { until?: (event: E, id: string | undefined) => boolean } = {},
): Promise<{ messages: SseEntry<E>[]; comments: number }> {
  const reader = new SseReader<E>(response);
  try {
    for (let entry = await reader.next(); entry; entry = await reader.next())
      if (options.until?.(entry.event, entry.id)) break;
  } finally {
    await reader.cancel();
  }
  return { messages: reader.messages, comments: reader.comments };
}
