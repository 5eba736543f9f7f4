import { describe, expect, it } from 'vitest';
import { Agent } from './agent';
import { appendBase64, isBase64 } from './base64-append';
import type { Base64Source, DataBlock } from './blocks';
import type { AgentEvent } from './events';
import type { ModelChunk } from './model';
import { replayEvents } from './replay-events';
import { ScriptedModel, textChunks } from './testing/scripted-model';

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const bytesOf = (n: number, seed: number) => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 255);
const quiet = { warn() {}, error() {} };

describe('appendBase64', () => {
  it('concatenates the bytes of separately encoded chunks of every length, valid after each append', () => {
    const source: Base64Source = { type: 'base64', data: '', mediaType: 'application/octet-stream' };
    const all: number[] = [];
    for (const n of [0, 1, 2, 3, 4, 5, 7, 1, 1, 1, 2, 3, 10, 0, 2]) {
      const chunk = bytesOf(n, all.length);
      expect(appendBase64(source, b64(chunk))).toBe(true);
      all.push(...chunk);
      expect(source.data).toBe(b64(Uint8Array.from(all)));
    }
  });

  it('continues data encoded elsewhere, padded or not, and accepts unpadded chunks', () => {
    for (const start of [bytesOf(4, 1), bytesOf(5, 2), bytesOf(6, 3)]) {
      const source: Base64Source = { type: 'base64', data: b64(start), mediaType: 'x/y' };
      const unpadded = b64(bytesOf(4, 9)).replace(/=+$/, '');
      expect(appendBase64(source, unpadded)).toBe(true);
      expect(source.data).toBe(b64(Uint8Array.from([...start, ...bytesOf(4, 9)])));
    }
  });

  it('refuses what is not base64 and leaves the data as it was', () => {
    const source: Base64Source = { type: 'base64', data: b64(bytesOf(5, 0)), mediaType: 'x/y' };
    const before = source.data;
    for (const bad of ['!!!!', 'AAAAA', 'A=AA', 'AA=A', 'AAA==', 'AB\n', '€€€€'])
      expect([isBase64(bad), appendBase64(source, bad)]).toEqual([false, false]);
    expect(source.data).toBe(before);
  });
});

describe('data blocks streamed by the model', () => {
  it('2 MiB in 512 deltas: linear in the reply loop and in replayEvents, and byte-exact', async () => {
    const chunks: ModelChunk[] = [];
    const all: Uint8Array[] = [];
    for (let i = 0; i < 512; i++) {
      // 4 KiB + 1 byte: every chunk is padded, the case that re-encoded the whole buffer per delta.
      const bytes = bytesOf(4097, i);
      all.push(bytes);
      chunks.push({ type: 'data', mediaType: 'image/png', data: b64(bytes) });
    }
    const agent = new Agent({ name: 'a', model: new ScriptedModel([[...chunks, ...textChunks('here')]]) });
    const events: AgentEvent[] = [];
    const t0 = performance.now();
    for await (const e of agent.replyStream('draw')) events.push(e);
    const replyMs = performance.now() - t0;
    const t1 = performance.now();
    const replayed = replayEvents(events)!;
    const replayMs = performance.now() - t1;
    // Quadratic, this took minutes; linear, a few tens of ms (a generous bound for a loaded machine).
    expect(replyMs).toBeLessThan(1500);
    expect(replayMs).toBeLessThan(1500);
    const block = agent.state.context.at(-1)!.content[0] as DataBlock;
    const expected = Buffer.concat(all).toString('base64');
    expect(block.source).toMatchObject({ type: 'base64', data: expected });
    expect(replayed).toEqual(agent.state.context.at(-1));
  });

  it('a chunk that is not base64 ends the reply with a recorded error, and replay never throws', async () => {
    const model = new ScriptedModel([
      [
        { type: 'data', mediaType: 'image/png', data: 'AAAA' },
        { type: 'data', mediaType: 'image/png', data: '<script>' },
        ...textChunks('x'),
      ],
    ]);
    const agent = new Agent({ name: 'a', model, logger: quiet });
    const events: AgentEvent[] = [];
    for await (const e of agent.replyStream('draw')) events.push(e);
    expect(events.at(-1)).toMatchObject({
      type: 'REPLY_END',
      finishedReason: 'error',
      error: { type: 'upstream', message: 'The model sent a data chunk that is not base64.' },
    });
    expect(replayEvents(events)).toEqual(agent.state.context.at(-1));

    // A client fed a hostile stream: the bad delta is reported and skipped.
    const warnings: string[] = [];
    const bad: AgentEvent = {
      type: 'DATA_BLOCK_DELTA',
      replyId: 'r',
      blockId: 'd',
      data: '%%',
      mediaType: 'x/y',
    };
    const start: AgentEvent[] = [
      { type: 'REPLY_START', replyId: 'r', sessionId: 's', name: 'a', role: 'assistant', createdAt: '' },
      { type: 'DATA_BLOCK_START', replyId: 'r', blockId: 'd', mediaType: 'x/y' },
      { type: 'DATA_BLOCK_DELTA', replyId: 'r', blockId: 'd', data: 'AQID', mediaType: 'x/y' },
    ];
    const msg = replayEvents([...start, bad], null, (m) => warnings.push(m))!;
    expect(warnings).toEqual(["data delta of block 'd' is not base64"]);
    expect(msg.content[0]).toMatchObject({ source: { data: 'AQID' } });
  });
});

describe('a response of data blocks only', () => {
  it('is the final answer (an image is an answer): one model call, completed', async () => {
    const model = new ScriptedModel([
      [{ type: 'data', mediaType: 'image/png', data: 'iVBORw0KGgo=' }],
      textChunks('never asked'),
    ]);
    const agent = new Agent({ name: 'a', model });
    const msg = await agent.reply('draw a cat');
    expect(msg.finishedReason).toBe('completed');
    expect(model.requests).toHaveLength(1);
    expect(msg.content.map((b) => b.type)).toEqual(['data']);
  });
});
