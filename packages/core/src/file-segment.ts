import { sha256Hex } from './sha256';

const MAX_SEGMENT = 200;
const utf8 = new TextEncoder();

/**
 * Turns an id (user, agent, session, tool call…) into a file or directory name that is safe on every
 * common filesystem and never shared by two ids: `_` followed by the id with every UTF-8 byte outside
 * `[a-z0-9_-]` written as `%XX` (upper-case hex). Upper-case letters are escaped too, so `Alice` and
 * `alice` never share a name on a case-insensitive filesystem (macOS, Windows); `.`, `/`, `\`, spaces and
 * NUL never appear unescaped, so no name is `.`/`..`, ends with a dot or escapes its directory; the `_`
 * prefix keeps Windows device names (`CON`, `NUL`, `com1`) out. A name that would be longer than 200
 * characters becomes `~` and the SHA-256 of the id (64 hex digits): keep the real id inside the file if
 * you need to list ids back.
 * @example fileSegment('Alice') // '_%41lice'
 * @example fileSegment('../etc') // '_%2E%2E%2Fetc'
 */
export function fileSegment(id: string): string {
  const bytes = utf8.encode(id);
  let out = '_';
  for (const byte of bytes) {
    const safe =
      (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39) || byte === 0x5f || byte === 0x2d;
    out += safe ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    if (out.length > MAX_SEGMENT) return `~${sha256Hex(bytes)}`;
  }
  return out;
}
