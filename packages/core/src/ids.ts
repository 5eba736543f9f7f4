// A random per-process prefix (64 bits, base64url) and a counter: unique across processes and much
// cheaper — and shorter, which adds up in long-lived state — than a UUID per message and block.
const prefix = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(8))))
  .replaceAll('+', '-')
  .replaceAll('/', '_')
  .replace(/=+$/, '');
let counter = 0;

/** Returns a new unique id (base64url characters): minted for messages, blocks and replies, not per delta. */
export function newId(): string {
  return prefix + (counter++).toString(36);
}
