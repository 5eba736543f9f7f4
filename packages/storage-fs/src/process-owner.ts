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

/** The start time and state of a process from `/proc`, or `undefined` when `/proc` does not say. */
function procStat(pid: number): { start: string; zombie: boolean } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined; // no /proc, or the process is hidden from us (hidepid): ask it no more
  }
  // `pid (comm) state ppid …`: comm may hold spaces and parentheses, so split after the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { start: fields[19] ?? '', zombie: fields[0] === 'Z' };
}

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
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return true;
    // EPERM: it exists, owned by another user.
  }
  // The pid exists: it is still our process unless it is a zombie or started at another time (reused).
  const stat = procStat(pid);
  return stat !== undefined && (stat.zombie || (start !== '' && stat.start !== start));
}
