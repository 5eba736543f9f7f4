import type { Msg } from '@agentkit/core';

/** Options of {@link splitContext}. */
export interface SplitContextOptions {
  /** Tokens always sent besides the context: system prompt, summary and tool schemas. */
  baseTokens: number;
  /** Tokens the kept part may use, `baseTokens` included (`reserveRatio × contextSize`). */
  budget: number;
  /** Counts the tokens of one message (the kernel's cached counter). */
  countMsg: (msg: Msg) => number;
  /**
   * Tool calls that must stay, together with everything after them (the `CompressContext` call that is
   * running). Earlier calls whose results follow them are kept too.
   */
  keepToolCallIds?: readonly string[] | undefined;
}

/** The two parts of a split context. */
export interface ContextSplit {
  /** The older part, to summarise (and offload). */
  toCompress: Msg[];
  /** The newer part, kept word for word. */
  toKeep: Msg[];
}

/**
 * Splits a context into an older part to compress and a newer part to keep:
 *
 * 1. Walk from the newest message back and stop at the first message `i` where
 *    `baseTokens + tokens(context[i:])` reaches `budget`. If none does, everything is kept.
 * 2. Split that boundary message at block level: keep the largest suffix of its blocks for which
 *    `baseTokens + suffix + kept` stays ≤ `budget`. The two parts become two copies with the same id.
 * 3. Never separate a tool call from its result: while a kept result's call is in the compressed part, move
 *    the boundary past that result. Then, for `keepToolCallIds`, move the boundary back to the call and pull in
 *    the calls of every kept result.
 *
 * Messages that are not split are returned as the same objects. Pure: nothing is mutated.
 */
export function splitContext(context: readonly Msg[], options: SplitContextOptions): ContextSplit {
  const { baseTokens, budget, countMsg } = options;
  const n = context.length;
  // Global block positions: message m holds positions offsets[m] … offsets[m] + length − 1.
  const offsets: number[] = new Array(n + 1);
  offsets[0] = 0;
  for (let m = 0; m < n; m++) offsets[m + 1] = offsets[m]! + context[m]!.content.length;
  const total = offsets[n]!;

  let acc = 0;
  let i = n - 1;
  for (; i >= 0; i--) {
    const t = countMsg(context[i]!);
    if (baseTokens + acc + t >= budget) break;
    acc += t;
  }
  if (i < 0) return { toCompress: [], toKeep: [...context] };
  const boundary = context[i]!;
  let b = boundary.content.length - 1;
  for (; b >= 0; b--) {
    const attempt: Msg = { ...boundary, content: boundary.content.slice(b) };
    if (baseTokens + countMsg(attempt) + acc > budget) break;
  }
  const pos = repairToolPairs(context, offsets, offsets[i]! + b + 1, options.keepToolCallIds ?? []);
  return cut(context, offsets, total, pos);
}

function repairToolPairs(
  context: readonly Msg[],
  offsets: number[],
  start: number,
  keepIds: readonly string[],
): number {
  const n = context.length;
  const callAt = new Map<string, number>();
  const results: Array<{ id: string; pos: number }> = [];
  for (let m = 0; m < n; m++) {
    const blocks = context[m]!.content;
    for (let b = 0; b < blocks.length; b++) {
      const block = blocks[b]!;
      const p = offsets[m]! + b;
      if (block.type === 'tool_call') {
        if (!callAt.has(block.id)) callAt.set(block.id, p);
      } else if (block.type === 'tool_result') results.push({ id: block.id, pos: p });
    }
  }
  let pos = start;
  // Forward: a kept result whose call was compressed goes to the compressed part (with everything before it).
  for (;;) {
    let moveTo = -1;
    for (const r of results) {
      const call = callAt.get(r.id);
      if (r.pos >= pos && call !== undefined && call < pos) moveTo = Math.max(moveTo, r.pos + 1);
    }
    if (moveTo < 0) break;
    pos = moveTo;
  }
  // Backward: pinned calls stay, and so do the calls of every result kept with them.
  for (const id of keepIds) {
    const call = callAt.get(id);
    if (call !== undefined && call < pos) pos = call;
  }
  for (;;) {
    let moveTo = pos;
    for (const r of results) {
      const call = callAt.get(r.id);
      if (r.pos >= pos && call !== undefined && call < moveTo) moveTo = call;
    }
    if (moveTo === pos) break;
    pos = moveTo;
  }
  return pos;
}

function cut(context: readonly Msg[], offsets: number[], total: number, pos: number): ContextSplit {
  if (pos <= 0) return { toCompress: [], toKeep: [...context] };
  if (pos >= total) return { toCompress: [...context], toKeep: [] };
  // The first message that has a block at or after `pos`.
  let m = 0;
  while (offsets[m + 1]! <= pos) m++;
  const b = pos - offsets[m]!;
  const msg = context[m]!;
  const toCompress = context.slice(0, m);
  const toKeep = context.slice(m + 1);
  if (b === 0) toKeep.unshift(msg);
  else {
    toCompress.push({ ...msg, content: msg.content.slice(0, b) });
    toKeep.unshift({ ...msg, content: msg.content.slice(b) });
  }
  return { toCompress, toKeep };
}
