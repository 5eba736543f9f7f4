const START = /^/;

/**
 * `s` as one flat string. Text grown by `+=` (a streamed block) is a V8 rope — one cons cell per delta,
 * about six times the size of its characters — and the state may hold it for the life of a session.
 * A regular-expression replace builds its result from a flattened subject in every JIT tier (reading a
 * character does not: optimised code walks the rope). Shorter strings are always flat already.
 */
export function flatten(s: string): string {
  return s.length < 13 ? s : s.replace(START, '');
}
