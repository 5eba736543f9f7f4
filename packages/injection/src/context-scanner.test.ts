import { assistantMsg, type ContentBlock, type HintBlock, type Msg, userMsg } from '@agentkit/core';
import { describe, expect, it } from 'vitest';
import { createContextScanner } from './context-scanner';
import { scanContext } from './scan-context';

const SOURCE = 'injection';
let ids = 0;
const hint = (text: string, source: string | null = SOURCE): HintBlock => ({
  type: 'hint',
  id: `h${ids++}`,
  hint: text,
  source,
  createdAt: '2026-07-01T00:00:00.000Z',
});
const call = (name: string): ContentBlock => ({
  type: 'tool_call',
  id: `c${ids++}`,
  name,
  input: '{}',
  state: 'finished',
});

/** A small seeded PRNG (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const randomBlock = (rnd: () => number): ContentBlock => {
  const pick = Math.floor(rnd() * 7);
  if (pick === 0) return hint(`<current-time>t${ids}</current-time>`);
  if (pick === 1) return hint('<tasks>2 pending</tasks>');
  if (pick === 2) return hint(`<current-time>other${ids}</current-time>`, 'someone-else');
  if (pick === 3) return call('TaskList');
  if (pick === 4) return call('Bash');
  if (pick === 5) return hint(`<context-length>${ids}</context-length>`);
  return { type: 'text', id: `t${ids++}`, text: 'words' };
};

describe('createContextScanner', () => {
  it('gives the same answer as a full scan over random append, reply, resume and replace sequences', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const rnd = random(seed);
      const scan = createContextScanner();
      let context: Msg[] = [];
      let reply = -1;
      for (let step = 0; step < 120; step++) {
        const op = rnd();
        if (op < 0.1) {
          // A new reply: the input, then the reply's message.
          context.push(userMsg('hi'));
          context.push(assistantMsg([]));
          reply = context.length - 1;
        } else if (op < 0.55 && reply >= 0) {
          context[reply]!.content.push(randomBlock(rnd));
        } else if (op < 0.62 && reply >= 0) {
          // Reply end: the kernel compacts the reply's content array.
          context[reply]!.content = context[reply]!.content.slice();
          reply = -1;
        } else if (op < 0.68) {
          // observe(): messages appended outside a reply, possibly after a paused reply's message.
          context.push(rnd() < 0.5 ? userMsg('note') : assistantMsg([randomBlock(rnd)]));
        } else if (op < 0.72) {
          // Compression: a new array with the newest messages (the reply's message kept).
          const keep = Math.floor(rnd() * (context.length + 1));
          const start = Math.min(context.length - keep, reply >= 0 ? reply : context.length);
          context = context.slice(start);
          reply = reply >= 0 ? reply - start : -1;
        } else if (op < 0.78 && reply < 0) {
          // Resuming a paused reply: an earlier assistant message is the reply's message again.
          for (let i = context.length - 1; i >= 0 && reply < 0; i--)
            if (context[i]!.role === 'assistant') reply = i;
        } else if (op < 0.74 && context.length > 0) {
          // Image limiting: a new array in which an old message is replaced by a changed copy.
          const i = Math.floor(rnd() * context.length);
          const msg = context[i]!;
          context = [...context];
          context[i] = { ...msg, content: [...msg.content, hint('<tasks>late</tasks>')] };
        }
        const options = {
          source: SOURCE,
          taskToolNames: ['TaskList'],
          hasUnfinishedTasks: rnd() < 0.8,
        };
        const expected = scanContext(context, options);
        // Without `openFrom` only the last message may change (so the reply's message must be the last).
        const openFrom = reply >= 0 && (reply < context.length - 1 || rnd() < 0.7) ? reply : undefined;
        expect(scan(context, { ...options, openFrom }), `seed ${seed}, step ${step}`).toEqual(expected);
      }
    }
  });

  it('only reads what was appended since the last call', () => {
    const scan = createContextScanner();
    const context: Msg[] = [assistantMsg([hint('<current-time>first</current-time>')])];
    for (let i = 0; i < 50; i++)
      context.push(userMsg('q'), assistantMsg([{ type: 'text', id: `a${i}`, text: 'a' }]));
    const options = { source: SOURCE, taskToolNames: ['TaskList'], hasUnfinishedTasks: true };
    expect(scan(context, options).lastTimeText).toBe('<current-time>first</current-time>');
    // Poison the messages already read: a scan that read them again would throw.
    for (let i = 0; i < context.length - 1; i++)
      Object.defineProperty(context[i]!, 'role', {
        get() {
          throw new Error(`message ${i} read again`);
        },
      });
    context.push(userMsg('q'), assistantMsg([hint('<tasks>1 pending</tasks>')]));
    expect(scan(context, options)).toEqual({
      lastTimeText: '<current-time>first</current-time>',
      awareOfTasks: true,
    });
  });

  it('starts over when the last message it remembered has changed', () => {
    const scan = createContextScanner();
    const first = assistantMsg([]);
    const context: Msg[] = [first, userMsg('q')];
    const options = { source: SOURCE, taskToolNames: ['TaskList'], hasUnfinishedTasks: true };
    expect(scan(context, options).lastTimeText).toBeNull();
    first.content.push(hint('<current-time>late</current-time>'));
    expect(scan(context, options).lastTimeText).toBe('<current-time>late</current-time>');
  });

  it('starts over for another source, other task tool names or a replaced array', () => {
    const scan = createContextScanner();
    const context: Msg[] = [
      assistantMsg([hint('<current-time>x</current-time>'), call('Todo')]),
      userMsg('q'),
    ];
    const options = { source: SOURCE, taskToolNames: ['TaskList'], hasUnfinishedTasks: true };
    expect(scan(context, options)).toEqual({
      lastTimeText: '<current-time>x</current-time>',
      awareOfTasks: false,
    });
    expect(scan(context, { ...options, taskToolNames: ['Todo'] }).awareOfTasks).toBe(true);
    expect(scan(context, { ...options, source: 'other' }).lastTimeText).toBeNull();
    expect(scan([userMsg('q')], options).lastTimeText).toBeNull();
  });
});
