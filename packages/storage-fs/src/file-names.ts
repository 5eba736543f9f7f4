import { createHash } from 'node:crypto';

const MAX_SEGMENT = 200;

/**
 * Turns an id into a file or directory name that is safe on every common filesystem: `_` followed by
 * the id with every UTF-8 byte outside `[a-z0-9_-]` written as `%XX` (upper-case hex). Upper-case letters
 * are escaped too, so two ids never share a name on a case-insensitive filesystem; `.`, `/`, `\` and NUL
 * never appear unescaped, so no name is `.`/`..` or escapes the directory. A name longer than 200 bytes
 * becomes `~` and the SHA-256 of the id (the record inside names the real ids and is checked on load).
 */
export function fileSegment(id: string): string {
  let out = '_';
  for (const byte of Buffer.from(id, 'utf8')) {
    const safe =
      (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39) || byte === 0x5f || byte === 0x2d;
    out += safe ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    if (out.length > MAX_SEGMENT) return `~${createHash('sha256').update(id, 'utf8').digest('hex')}`;
  }
  return out;
}

/** The suffix of session files. Temp files (`….tmp`) and lock files (`….lock`) never end with it. */
export const RECORD_SUFFIX = '.json';
