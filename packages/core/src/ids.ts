// A random per-process prefix and a counter: unique across processes (the prefix carries 96 random
// bits) and much cheaper than a UUID per id, which matters for ids minted per block and event.
const prefix = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) =>
  b.toString(16).padStart(2, '0'),
).join('');
let counter = 0;

/** Returns a new unique id (hex): minted for messages, blocks and replies, never per streamed delta. */
export function newId(): string {
  return prefix + (counter++).toString(16).padStart(8, '0');
}
