import { replayEvents } from '@agentkit/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { as } from '@agentkit/test-fixtures';
import { startServer } from '../../test/helpers';
import { agentEvents } from './agent-events';
import { readSse, SseReader } from './sse-reader';

/**
 * A response whose body arrives in the given pieces (bytes, so a piece may end inside a character), then
 * ends, or stays open (`open`) like a live stream.
 */
function responseOf(
  text: string,
  cuts: number[],
  open = false,
): { response: Response; cancelled: () => boolean } {
  const bytes = new TextEncoder().encode(text);
  const bounds = [0, ...cuts, bytes.length];
  let piece = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (piece + 1 < bounds.length) controller.enqueue(bytes.slice(bounds[piece], bounds[++piece]));
      else if (!open) controller.close();
    },
    cancel() {
      cancelled = true;
    },
  });
  return { response: new Response(body), cancelled: () => cancelled };
}

const stream = [
  'retry: 1000',
  '',
  'id: 1-0',
  'data: {"type":"REPLY_START","text":"héllo"}',
  '',
  ': ping',
  '',
  'id: 1-1',
  'data: {"type":"TEXT_BLOCK_DELTA",',
  'data: "delta":"a"}',
  '',
  'data:{"type":"REPLY_SNAPSHOT"}',
  '',
  '',
].join('\n');

describe('SseReader', () => {
  it('reads messages split anywhere (inside a line, a character, a line break), with ids, multi-line data and comments', async () => {
    const expected = [
      { id: '1-0', event: { type: 'REPLY_START', text: 'héllo' } },
      { id: '1-1', event: { type: 'TEXT_BLOCK_DELTA', delta: 'a' } },
      { event: { type: 'REPLY_SNAPSHOT' } },
    ];
    for (const text of [stream, stream.replaceAll('\n', '\r\n'), stream.replaceAll('\n', '\r')]) {
      const size = new TextEncoder().encode(text).length;
      for (let cut = 1; cut < size; cut++) {
        const { response } = responseOf(text, [cut, Math.min(cut + 7, size - 1)]);
        expect(await readSse(response), `cut at ${cut}`).toEqual({ messages: expected, comments: 1 });
      }
    }
  });

  it('reads on demand: `until` returns the awaited message, `next` gives `null` at the end', async () => {
    const reader = new SseReader<{ type: string }>(responseOf(stream, [10, 40]).response);
    expect(await reader.until((event) => event.type === 'TEXT_BLOCK_DELTA')).toEqual({
      id: '1-1',
      event: { type: 'TEXT_BLOCK_DELTA', delta: 'a' },
    });
    expect(reader.messages).toHaveLength(2);
    expect(reader.comments).toBe(1);
    expect(await reader.next()).toEqual({ event: { type: 'REPLY_SNAPSHOT' } });
    expect(await reader.next()).toBeNull();
    await expect(reader.until(() => true)).rejects.toThrow('ended before the awaited event');
  });

  it('stops at the message `until` accepts and cancels the body of a stream still open', async () => {
    const { response, cancelled } = responseOf(stream, [60], true);
    const { messages } = await readSse(response, { until: (_event, id) => id === '1-0' });
    expect(messages.map((m) => m.id)).toEqual(['1-0']);
    await vi.waitFor(() => expect(cancelled()).toBe(true));
  });

  it('fails clearly on data that is not JSON', async () => {
    await expect(readSse(responseOf('data: [DONE]\n\n', []).response)).rejects.toThrow(
      "An SSE message's data is not JSON: [DONE]",
    );
  });
});

describe('readSse and agentEvents against an agent server', () => {
  let close: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await close?.();
    close = undefined;
  });

  it('reads a reply stream whose agent events reduce to the stored message', async () => {
    const served = await startServer();
    close = served.close;
    const response = await as('alice', served.url)('/agents/ops/sessions/s1/replies', {
      method: 'POST',
      headers: { Accept: 'text/event-stream' },
      body: JSON.stringify({ input: 'Deploy billing.' }),
    });
    const { messages } = await readSse(response);
    expect(messages[0]).toMatchObject({ id: expect.any(String), event: { type: 'RUN_START' } });
    expect(messages.at(-1)).toMatchObject({ event: { type: 'RUN_END', status: 'ended' } });
    const events = agentEvents(messages);
    expect(events.map((e) => e.type)).not.toContain('RUN_START');
    expect(events.map((e) => e.type)).not.toContain('RUN_END');
    const stored = await served.store.getSession('alice', 'ops', 's1');
    expect(replayEvents(events)).toEqual(stored!.state.context.at(-1));
  });
});
