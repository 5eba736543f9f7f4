import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/** A process that owns a temp file or a lease: its host, pid and (on Linux) start time. */
export interface ProcessOwner {
  host: string;
  pid: number;
  /** The kernel's start time of the process (`/proc/<pid>/stat`), `''` where unknown. Tells a reused pid apart. */
  start: string;
}

/** The start time and state of a process from `/proc`: `null` when it does not exist, `undefined` without `/proc`. */
function procStat(pid: number): { start: string; zombie: boolean } | null | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ESRCH') return readableProc ? null : undefined;
    return undefined;
  }
  // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so split after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { start: fields[19] ?? '', zombie: fields[0] === 'Z' };
}

const readableProc = (() => {
  try {
    readFileSync('/proc/self/stat');
    return true;
  } catch {
    return false;
  }
})();

/** This process. */
export const SELF: ProcessOwner = {
  host: hostname(),
  pid: process.pid,
  start: procStat(process.pid)?.start ?? '',
};

/** A short tag of this host for file names (host names may hold any character). */
export const HOST_TAG = createHash('sha256').update(SELF.host).digest('hex').slice(0, 8);

/**
 * True when the process is known to be gone: it ran on this host and its pid no longer exists, is a
 * zombie, or now belongs to a process that started at another time. A process on another host is never
 * known to be gone; a live (even stopped) one never is.
 */
export function processGone(owner: { host: string; pid: number; start: string }): boolean {
  if (owner.host !== SELF.host) return false;
  return pidGone(owner.pid, owner.start);
}

/** {@link processGone} for a process of this host, by pid and start time. */
export function pidGone(pid: number, start: string): boolean {
  if (!Number.isSafeInteger(pid) || pid < 1) return false; // not a process we can ask about (0 and -1 are groups)
  const stat = procStat(pid);
  if (stat === null) return true;
  if (stat !== undefined) return stat.zombie || (start !== '' && stat.start !== start);
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
