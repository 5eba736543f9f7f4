/**
 * The scripted workload every subject plays: the same model decisions, the same strings, the same tool.
 * A subject wraps {@link ToolCycle} in its own framework's mock-model facility, so the only thing that
 * differs between subjects is the framework.
 */

/** One model decision: call `add(a, b)` or answer with text. */
export type Step = { kind: 'tool'; id: string; a: number; b: number } | { kind: 'text'; text: string };

/**
 * A zero-latency model script: calls `add` `k` times (one call per model call), then answers; and
 * again from the start on the next reply. Period k + 1 model calls.
 */
export class ToolCycle {
  private calls = 0;
  constructor(private readonly k: number) {}

  /** The next decision. */
  next(): Step {
    const n = this.calls++;
    const position = n % (this.k + 1);
    if (position < this.k) return { kind: 'tool', id: `call_${n}`, a: n, b: 1 };
    return { kind: 'text', text: flat(`The sum is ${n + 1}.`) };
  }
}

/** A model script of text answers only (S4): answer `n` is a short sentence unique to the call. */
export class TextCycle {
  private calls = 0;
  /** The next answer. */
  next(): string {
    const n = this.calls++;
    return flat(`Answer ${n}: the sum you asked for is ${n + 7}, and that is final.`);
  }
}

/**
 * A flat (sequential) copy of a string built by concatenation: V8 keeps template results as trees of
 * cons-strings, which would make every held message look bigger than its characters.
 */
export const flat = (s: string): string => JSON.parse(JSON.stringify(s)) as string;

/** S2's user message of turn `t`. */
export const turnText = (t: number): string => flat(`Turn ${t}: please add ${t} and 1.`);

/** S4's user message of question `t` in session `s`. */
export const questionText = (s: number, t: number): string =>
  flat(`Session ${s}, question ${t}: what is ${t} + ${s}?`);

/** The S3 answer: `n` deltas of one short word each. */
export function streamDeltas(n: number): string[] {
  const out = new Array<string>(n);
  for (let i = 0; i < n; i++) out[i] = i % 10 === 9 ? 'word.\n' : 'word ';
  return out;
}

/** The trivial tool every subject registers. */
export const addDescription = 'Add two numbers and return the sum.';

/** Input of `add`. */
export interface AddInput {
  a: number;
  b: number;
}
