import { type ContentBlock, createMsg, type DataBlock, type Msg, textBlock } from '@agentkit/core';
import { describe, expect, it } from 'vitest';
import { countContextImages } from './limit-images';

let ids = 0;
const data = (mediaType: string): DataBlock => ({
  type: 'data',
  id: `d${ids++}`,
  source: { type: 'url', url: 'https://example.test/x', mediaType },
});

/** A block holding 0–2 images: top level, inside a tool result or inside a hint; or audio / text. */
function randomBlock(rnd: () => number): ContentBlock {
  const pick = Math.floor(rnd() * 6);
  if (pick === 0) return data('image/png');
  if (pick === 1) return data('audio/wav');
  if (pick === 2)
    return {
      type: 'tool_result',
      id: `r${ids++}`,
      name: 'view',
      output: [textBlock('x'), data('image/jpeg'), data('image/png')],
      state: 'success',
      metadata: {},
    };
  if (pick === 3)
    return { type: 'hint', id: `h${ids++}`, hint: [data('image/gif')], source: 'x', createdAt: '2026-01-01' };
  return textBlock('words');
}

/** The reference: every image of every message, counted from scratch. */
function fullCount(context: readonly Msg[]): number {
  const isImage = (b: ContentBlock) => b.type === 'data' && b.source.mediaType.startsWith('image/');
  let n = 0;
  for (const msg of context)
    for (const b of msg.content) {
      if (isImage(b)) n++;
      if (b.type === 'tool_result') n += b.output.filter(isImage).length;
      if (b.type === 'hint' && typeof b.hint !== 'string') n += b.hint.filter(isImage).length;
    }
  return n;
}

function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const msg = (role: 'user' | 'assistant', content: ContentBlock[]) => createMsg({ role, name: role, content });

describe('countContextImages', () => {
  it('gives the same count as a full count over random append, reply, resume and replace sequences', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const rnd = random(seed);
      let context: Msg[] = [];
      let reply = -1;
      for (let step = 0; step < 120; step++) {
        const op = rnd();
        if (op < 0.12) {
          context.push(msg('user', rnd() < 0.3 ? [data('image/png')] : [textBlock('hi')]));
          context.push(msg('assistant', []));
          reply = context.length - 1;
        } else if (op < 0.55 && reply >= 0) {
          context[reply]!.content.push(randomBlock(rnd));
        } else if (op < 0.62 && reply >= 0) {
          // Reply end: the kernel compacts the reply's content array.
          context[reply]!.content = context[reply]!.content.slice();
          reply = -1;
        } else if (op < 0.68) {
          // observe(): messages appended outside a reply, possibly after a paused reply's message.
          context.push(
            rnd() < 0.5 ? msg('user', [data('image/webp')]) : msg('assistant', [randomBlock(rnd)]),
          );
        } else if (op < 0.72) {
          // Compression: a new array with the newest messages (the reply's message kept).
          const keep = Math.floor(rnd() * (context.length + 1));
          const start = Math.min(context.length - keep, reply >= 0 ? reply : context.length);
          context = context.slice(start);
          reply = reply >= 0 ? reply - start : -1;
        } else if (op < 0.76 && reply < 0) {
          // Resuming a paused reply: an earlier assistant message is the reply's message again.
          for (let i = context.length - 1; i >= 0 && reply < 0; i--)
            if (context[i]!.role === 'assistant') reply = i;
        } else if (op < 0.8 && context.length > 0) {
          // Image limiting: a new array in which an old message is replaced by a copy without images.
          const i = Math.floor(rnd() * context.length);
          context = [...context];
          context[i] = { ...context[i]!, content: [textBlock('an image was here')] };
        }
        // Without `openFrom` only the last message may change (so the reply's message must be the last).
        const openFrom = reply >= 0 && (reply < context.length - 1 || rnd() < 0.7) ? reply : undefined;
        expect(countContextImages(context, openFrom), `seed ${seed}, step ${step}`).toBe(fullCount(context));
      }
    }
  });

  it('only reads what was appended since the last call', () => {
    const context: Msg[] = [];
    for (let i = 0; i < 50; i++) context.push(msg('user', [data('image/png')]), msg('assistant', []));
    expect(countContextImages(context)).toBe(50);
    // Poison the messages already counted (but the last, whose block count is checked): reading them again throws.
    for (let i = 0; i < context.length - 2; i++)
      Object.defineProperty(context[i]!, 'content', {
        get() {
          throw new Error(`message ${i} read again`);
        },
      });
    context.push(msg('user', [data('image/png'), data('image/png')]), msg('assistant', [data('image/png')]));
    expect(countContextImages(context, context.length - 1)).toBe(53);
  });

  it('starts over when the last message it counted has changed', () => {
    const first = msg('user', []);
    const context: Msg[] = [first, msg('assistant', [])];
    expect(countContextImages(context)).toBe(0);
    first.content.push(data('image/png'));
    expect(countContextImages(context)).toBe(1);
  });
});
