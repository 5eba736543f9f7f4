import type { Base64Source } from './blocks';

/** Standard base64 (padding optional): what a data chunk of a model response must be. */
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** True when `text` is standard base64 (with or without its `=` padding). */
export function isBase64(text: string): boolean {
  const rest = text.length % 4;
  return rest !== 1 && (rest === 0 || !text.endsWith('=')) && BASE64.test(text);
}

/**
 * Where the appends to a source stand: `whole` encodes every complete 3-byte group so far (no padding,
 * so later groups simply follow it), `tail` holds the 0–2 bytes left over (a binary string), and `data`
 * is what the source was set to, so a source changed behind our back is read afresh.
 */
interface Progress {
  whole: string;
  tail: string;
  data: string;
}
const progress = new WeakMap<Base64Source, Progress>();

/**
 * Appends the bytes of `delta` (separately base64-encoded) to `source.data`, leaving it valid base64 after
 * every call. Linear: each append decodes and encodes the delta and at most two earlier bytes, never the
 * whole buffer (which made many deltas quadratic). Returns `false`, changing nothing, when `delta` is not
 * base64.
 */
export function appendBase64(source: Base64Source, delta: string): boolean {
  if (!isBase64(delta)) return false;
  let p = progress.get(source);
  if (!p || p.data !== source.data) {
    p = split(source.data);
    if (!p) return false;
    progress.set(source, p);
  }
  const bytes = p.tail + atob(delta);
  const cut = bytes.length - (bytes.length % 3);
  p.whole += btoa(bytes.slice(0, cut));
  p.tail = bytes.slice(cut);
  p.data = source.data = p.tail ? p.whole + btoa(p.tail) : p.whole;
  return true;
}

/** Reads the progress of data encoded elsewhere (its last group may be partial); `undefined` if not base64. */
function split(data: string): Progress | undefined {
  if (!isBase64(data)) return undefined;
  const last = data.length % 4 || (data.endsWith('=') ? 4 : 0);
  return { whole: data.slice(0, data.length - last), tail: atob(data.slice(data.length - last)), data };
}
