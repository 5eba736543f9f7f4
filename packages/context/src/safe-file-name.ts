import { createHash } from 'node:crypto';

const UNSAFE = /[^A-Za-z0-9._-]/g;
const MAX_LENGTH = 80;
/** The suffix a changed name gets; an id that already ends like this is changed too, so names never collide. */
const HASHED = /-[0-9a-f]{16}$/;

/**
 * Turns an id (session id, tool call id) into a file or folder name that cannot leave its directory: only
 * `[A-Za-z0-9._-]`, never `.` or `..`, at most ~100 characters. When the id had to be changed (or already
 * looks like a changed name), a 64-bit hash of the original is appended, so that different ids never map to
 * the same name.
 * @example safeFileName('../etc/passwd') // '_etc_passwd-<16 hex>' (no separators, no leading dots)
 */
export function safeFileName(id: string): string {
  const cleaned = id.replace(UNSAFE, '_');
  const changed =
    cleaned !== id || cleaned.length > MAX_LENGTH || /^\.*$/.test(cleaned) || HASHED.test(cleaned);
  if (!changed) return cleaned;
  const hash = createHash('sha256').update(id).digest('hex').slice(0, 16);
  const head = cleaned.slice(0, MAX_LENGTH).replace(/^\.+/, '');
  return head ? `${head}-${hash}` : `id-${hash}`;
}
