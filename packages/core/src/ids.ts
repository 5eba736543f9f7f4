// A random per-process prefix (64 bits, base64url) and a counter: unique across processes and much
// cheaper — and shorter, which adds up in long-lived state — than a UUID per message and block.
const prefix = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(8))))
  .replaceAll('+', '-')
  .replaceAll('/', '_')
  .replace(/=+$/, '');
let counter = 0;

/** Returns a new unique id (base64url characters): minted for messages, blocks and replies, not per delta. */
export function newId(): string {
  // `join`, not `+`: V8 keeps a concatenation of 13+ characters as a rope (a cons cell plus both parts,
  // ≈ 95 bytes per id), while `join` builds one flat string (≈ 40 bytes). Ids live as long as the state.
  return [prefix, (counter++).toString(36)].join('');
}
