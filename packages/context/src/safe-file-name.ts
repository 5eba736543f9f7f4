import { createHash } from 'node:crypto';

const UNSAFE = /[^A-Za-z0-9._-]/g;
const MAX_LENGTH = 80;

/**
 * Turns an id (session id, tool call id) into a file or folder name that cannot leave its directory: only
 * `[A-Za-z0-9._-]`, never `.` or `..`, at most ~90 characters. When the id had to be changed, a short hash of
 * the original is appended so that different ids never map to the same name.
 * @example safeFileName('../etc/passwd') // '_etc_passwd-<8 hex>' (no separators, no leading dots)
 */
export function safeFileName(id: string): string {
  const cleaned = id.replace(UNSAFE, '_');
  const changed = cleaned !== id || cleaned.length > MAX_LENGTH || /^\.*$/.test(cleaned);
  if (!changed) return cleaned;
  const hash = createHash('sha256').update(id).digest('hex').slice(0, 8);
  const head = cleaned.slice(0, MAX_LENGTH).replace(/^\.+/, '');
  return head ? `${head}-${hash}` : `id-${hash}`;
}
