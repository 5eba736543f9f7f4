import {
  assistantMsg,
  type ContentBlock,
  createMsg,
  type Msg,
  TokenCounter,
  textBlock,
} from '@agentkit/core';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitContext } from './split-context';

const counter = new TokenCounter();
const countMsg = (m: Msg) => counter.countMsg(m);
// Core's estimate: 4 characters of ASCII text are one token.
const text = (ch: string, tokens: number, id?: string) => textBlock(ch.repeat(tokens * 4), id);
const user = (id: string, content: string | ContentBlock[]) =>
  createMsg({ role: 'user', name: 'User', content, id });
const asst = (id: string, content: ContentBlock[]) =>
  createMsg({ role: 'assistant', name: 'Friday', content, id });
const ids = (msgs: Msg[]) => msgs.map((m) => m.id);
const texts = (msg: Msg) => msg.content.map((b) => (b.type === 'text' ? b.text : b.type));
// The reference's split tests: a 60-token system prompt and an 80-token budget.
const split = (context: Msg[]) => splitContext(context, { baseTokens: 60, budget: 80, countMsg });

describe('splitContext (reference compress_context_test split cases)', () => {
  it('keeps the last two messages when they fit exactly', () => {
    const context = [user('1', [text('1', 30)]), asst('2', [text('2', 10)]), user('3', [text('3', 10)])];
    const { toCompress, toKeep } = split(context);
    expect(ids(toCompress)).toEqual(['1']);
    expect(ids(toKeep)).toEqual(['2', '3']);
    expect(toKeep[0]).toBe(context[1]);
  });

  it('compresses the boundary message when it does not fit', () => {
    const { toCompress, toKeep } = split([
      user('1', [text('2', 30)]),
      asst('2', [text('3', 15)]),
      user('3', [text('3', 10)]),
    ]);
    expect(ids(toCompress)).toEqual(['1', '2']);
    expect(ids(toKeep)).toEqual(['3']);
  });

  it('compresses everything when not even the newest message fits', () => {
    const { toCompress, toKeep } = split([
      user('1', [text('2', 30)]),
      asst('2', [text('3', 15)]),
      user('3', [text('3', 30)]),
    ]);
    expect(ids(toCompress)).toEqual(['1', '2', '3']);
    expect(toKeep).toEqual([]);
  });

  it('splits a boundary message with several blocks into two copies with the same id', () => {
    const context = [
      user('1', [text('a', 30)]),
      asst('2', [text('b', 10, 'b'), text('c', 10, 'c')]),
      user('3', [text('d', 10)]),
    ];
    const { toCompress, toKeep } = split(context);
    expect(ids(toCompress)).toEqual(['1', '2']);
    expect(toCompress[1]!.content.map((b) => b.id)).toEqual(['b']);
    expect(texts(toCompress[1]!)).toEqual(['b'.repeat(40)]);
    expect(ids(toKeep)).toEqual(['2', '3']);
    expect(toKeep[0]!.content.map((b) => b.id)).toEqual(['c']);
    expect(toKeep[0]!.name).toBe('Friday');
    // The original message is untouched.
    expect(context[1]!.content).toHaveLength(2);
  });

  it('compresses the whole boundary message when none of its blocks fits', () => {
    const { toCompress, toKeep } = split([
      user('1', [text('a', 30)]),
      asst('2', [text('b', 10, 'b'), text('c', 15, 'c')]),
      user('3', [text('d', 10)]),
    ]);
    expect(ids(toCompress)).toEqual(['1', '2']);
    expect(toCompress[1]!.content.map((b) => b.id)).toEqual(['b', 'c']);
    expect(ids(toKeep)).toEqual(['3']);
  });

  it('keeps the last block of the boundary message when only it fits', () => {
    const { toCompress, toKeep } = split([
      user('1', [text('a', 30)]),
      asst('2', [text('b', 10, 'b'), text('c', 5, 'c')]),
      user('3', [text('d', 10)]),
    ]);
    expect(toCompress.map((m) => [m.id, m.content.map((b) => b.id)])).toEqual([
      ['1', [expect.any(String)]],
      ['2', ['b']],
    ]);
    expect(toKeep.map((m) => m.id)).toEqual(['2', '3']);
    expect(texts(toKeep[0]!)).toEqual(['c'.repeat(20)]);
  });

  it('keeps every block of the boundary message when they all fit', () => {
    const { toCompress, toKeep } = split([
      user('1', [text('a', 30)]),
      asst('2', [text('b', 5, 'b'), text('c', 5, 'c')]),
      user('3', [text('d', 10)]),
    ]);
    expect(ids(toCompress)).toEqual(['1']);
    expect(ids(toKeep)).toEqual(['2', '3']);
    expect(toKeep[0]!.content.map((b) => b.id)).toEqual(['b', 'c']);
  });

  it('keeps every message when they all fit', () => {
    const context = [asst('2', [text('b', 5, 'b'), text('c', 5, 'c')]), user('3', [text('d', 10)])];
    const { toCompress, toKeep } = split(context);
    expect(toCompress).toEqual([]);
    expect(toKeep).toEqual(context);
  });

  it('never separates tool pairs: the boundary moves past every unmatched result until stable', () => {
    const call = (id: string, value: string): ContentBlock => ({
      type: 'tool_call',
      id,
      name: id === 'tc1' ? 'first_tool' : 'second_tool',
      input: JSON.stringify({ value }),
      state: 'finished',
    });
    const result = (id: string, t: string): ContentBlock => ({
      type: 'tool_result',
      id,
      name: id === 'tc1' ? 'first_tool' : 'second_tool',
      output: [textBlock(t)],
      state: 'success',
      metadata: {},
    });
    const multi = asst('multi-tool-msg', [
      call('tc1', 'a'.repeat(80)),
      call('tc2', 'b'.repeat(80)),
      result('tc1', 'first result '.repeat(8)),
      result('tc2', 'second result '.repeat(8)),
      textBlock('Both tools completed.', 'final-text'),
    ]);
    const latest = user('latest-user', 'latest question');
    const context = [user('old-user', 'old'.repeat(80)), multi, latest];
    // A budget that fits [tc2 call, tc1 result, tc2 result, final text] + the latest message: unrepaired, the
    // kept part would hold tc1's result without its call.
    const blocks = multi.content;
    const tokensOf = (from: number) => countMsg({ ...multi, content: blocks.slice(from) });
    const budget = tokensOf(1) + countMsg(latest);
    expect(tokensOf(0) + countMsg(latest)).toBeGreaterThan(budget);
    const { toCompress, toKeep } = splitContext(context, { baseTokens: 0, budget, countMsg });
    expect(ids(toCompress)).toEqual(['old-user', 'multi-tool-msg']);
    expect(toCompress[1]!.content.map((b) => `${b.type}:${b.id}`)).toEqual([
      'tool_call:tc1',
      'tool_call:tc2',
      'tool_result:tc1',
      'tool_result:tc2',
    ]);
    expect(ids(toKeep)).toEqual(['multi-tool-msg', 'latest-user']);
    expect(toKeep[0]!.content.map((b) => b.id)).toEqual(['final-text']);
  });

  it('moves past a kept result whose call sits in an earlier message', () => {
    const context = [
      asst('a', [{ type: 'tool_call', id: 'x', name: 't', input: '{}', state: 'finished' }]),
      asst('b', [
        {
          type: 'tool_result',
          id: 'x',
          name: 't',
          output: [textBlock('r'.repeat(40))],
          state: 'success',
          metadata: {},
        },
        text('z', 5, 'tail'),
      ]),
    ];
    const { toCompress, toKeep } = splitContext(context, { baseTokens: 0, budget: 100, countMsg: () => 10 });
    // Everything fits the budget: nothing to repair.
    expect(toCompress).toEqual([]);
    const tight = splitContext(context, { baseTokens: 0, budget: 15, countMsg: (m) => m.content.length * 8 });
    expect(ids(tight.toCompress)).toEqual(['a', 'b']);
    expect(tight.toKeep.map((m) => m.content.map((b) => b.id))).toEqual([['tail']]);
    expect(toKeep).toHaveLength(2);
  });

  it('keeps a pinned call (a running CompressContext) and pulls in the earlier call whose result follows it', () => {
    const context = [
      user('old', [text('o', 50)]),
      asst('reply', [
        { type: 'tool_call', id: 'c1', name: 'Read', input: '{}', state: 'finished' },
        { type: 'tool_call', id: 'compress', name: 'CompressContext', input: '{}', state: 'allowed' },
        {
          type: 'tool_result',
          id: 'c1',
          name: 'Read',
          output: [textBlock('data')],
          state: 'success',
          metadata: {},
        },
      ]),
    ];
    const { toCompress, toKeep } = splitContext(context, {
      baseTokens: 10,
      budget: 0,
      countMsg,
      keepToolCallIds: ['compress'],
    });
    expect(ids(toCompress)).toEqual(['old']);
    expect(toKeep).toEqual([context[1]]);
  });
});

// ── property: random conversations ─────────────────────────────────────────────────────────────

type Gen =
  | { kind: 'text'; tokens: number }
  | { kind: 'call' }
  | { kind: 'result' }
  | { kind: 'hint'; tokens: number };

function buildConversation(shape: Gen[][], closeProb: number[]): Msg[] {
  let nextCall = 0;
  const open: string[] = [];
  return shape.map((blocks, m) => {
    const content: ContentBlock[] = [];
    blocks.forEach((g, j) => {
      if (g.kind === 'text') content.push(textBlock('x'.repeat(g.tokens * 4)));
      else if (g.kind === 'hint')
        content.push({
          type: 'hint',
          id: `h${m}_${j}`,
          hint: 'y'.repeat(g.tokens * 4),
          source: 's',
          createdAt: '',
        });
      else if (g.kind === 'call') {
        const id = `call${nextCall++}`;
        open.push(id);
        content.push({ type: 'tool_call', id, name: 'tool', input: '{"q":1}', state: 'finished' });
      } else if (open.length) {
        // Answer a random open call (results always follow their calls, possibly in a later message).
        const pick = Math.floor((closeProb[(m + j) % closeProb.length] ?? 0) * open.length);
        const [id] = open.splice(pick, 1);
        content.push({
          type: 'tool_result',
          id: id!,
          name: 'tool',
          output: [textBlock('r'.repeat(12))],
          state: 'success',
          metadata: {},
        });
      }
    });
    return m % 2 === 0 && content.every((b) => b.type === 'text')
      ? createMsg({ role: 'user', content, id: `m${m}` })
      : assistantMsg(content, { id: `m${m}` });
  });
}

const genBlock: fc.Arbitrary<Gen> = fc.oneof(
  fc.record({ kind: fc.constant('text' as const), tokens: fc.integer({ min: 0, max: 40 }) }),
  fc.record({ kind: fc.constant('hint' as const), tokens: fc.integer({ min: 1, max: 10 }) }),
  fc.constant({ kind: 'call' as const }),
  fc.constant({ kind: 'result' as const }),
);

describe('splitContext properties', () => {
  it('never separates a call from its result, keeps a suffix, and loses nothing', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(genBlock, { maxLength: 6 }), { minLength: 0, maxLength: 12 }),
        fc.array(fc.double({ min: 0, max: 0.999, noNaN: true }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 400 }),
        fc.boolean(),
        (shape, probs, baseTokens, budget, pinLast) => {
          const context = buildConversation(shape, probs);
          const calls = context.flatMap((m) =>
            m.content.filter((b) => b.type === 'tool_call').map((b) => b.id),
          );
          const keepToolCallIds = pinLast && calls.length ? [calls[calls.length - 1]!] : [];
          const { toCompress, toKeep } = splitContext(context, {
            baseTokens,
            budget,
            countMsg,
            keepToolCallIds,
          });

          // Nothing lost or reordered: the parts, joined (copies of one message merged back), are the context.
          const joined: Msg[] = [];
          for (const m of [...toCompress, ...toKeep]) {
            const last = joined[joined.length - 1];
            if (last && last.id === m.id && last !== m && m !== context.find((c) => c.id === m.id)) {
              joined[joined.length - 1] = { ...last, content: [...last.content, ...m.content] };
            } else joined.push(m);
          }
          expect(joined.map((m) => m.id)).toEqual(context.map((m) => m.id));
          for (const [i, m] of joined.entries()) expect(m.content).toEqual(context[i]!.content);

          // A call and its result end up on the same side.
          const side = new Map<string, Set<string>>();
          const mark = (msgs: Msg[], where: string) => {
            for (const b of msgs.flatMap((m) => m.content)) {
              if (b.type !== 'tool_call' && b.type !== 'tool_result') continue;
              const s = side.get(b.id) ?? new Set<string>();
              s.add(where);
              side.set(b.id, s);
            }
          };
          mark(toCompress, 'compress');
          mark(toKeep, 'keep');
          for (const [, s] of side) expect(s.size).toBe(1);

          // The kept part is the newest part, and it stays within the budget unless a pinned call forced more.
          const keptTokens = toKeep.reduce((n, m) => n + countMsg(m), 0);
          if (keepToolCallIds.length === 0 && keptTokens > 0)
            expect(baseTokens + keptTokens).toBeLessThanOrEqual(budget);
          if (keepToolCallIds.length) {
            const pinned = keepToolCallIds[0]!;
            expect(toKeep.some((m) => m.content.some((b) => b.type === 'tool_call' && b.id === pinned))).toBe(
              true,
            );
          }
          // Nothing is compressed when everything fits.
          const all = context.reduce((n, m) => n + countMsg(m), 0);
          if (baseTokens + all < budget) expect(toCompress).toEqual([]);
        },
      ),
      { numRuns: 500 },
    );
  });
});
