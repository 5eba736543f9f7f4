/**
 * A 53-bit string hash (cyrb53). Not cryptographic; used only to derive ids that are stable across
 * replays, in any JavaScript runtime.
 */
function cyrb53(text: string, seed: number): string {
  let h1 = 0xdeadbeef ^ seed;
  let h2 = 0x41c6ce57 ^ seed;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ ch, 2654435761);
    h2 = Math.imul(h2 ^ ch, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(36);
}

/** Hashes `text` into a short, stable token (two 53-bit hashes, base 36). */
export function stableHash(text: string): string {
  return cyrb53(text, 1) + cyrb53(text, 2);
}

/**
 * The id of a Gemini function call that came without one. It is derived from the request (`seed`, a
 * digest of the conversation sent), the response id, the call's position in the response, its name and
 * its arguments, so the same request answered by the same response always gets the same ids (a replayed
 * or re-parsed stream does not mint new ones), while calls in different turns of one conversation differ.
 */
export function stableToolCallId(
  seed: string,
  responseId: string,
  index: number,
  name: string,
  args: string,
): string {
  return `call_${stableHash(`${seed}\u0000${responseId}\u0000${index}\u0000${name}\u0000${args}`)}`;
}
