/**
 * Returns `s` after making V8 store it as one flat string. Text grown by `+=` (a streamed block) is a
 * rope — one cons cell per delta, about six times the size of its characters — and the state may hold it
 * for the life of a session. Reading one character flattens a rope in place; on other engines, and for
 * strings that are already flat, this costs next to nothing.
 */
export function flatten(s: string): string {
  s.charCodeAt(0);
  return s;
}
