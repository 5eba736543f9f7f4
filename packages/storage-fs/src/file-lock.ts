import { randomBytes } from 'node:crypto';
import { link, open, readFile, stat, unlink, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { StoreConnectionError } from '@agentkit/core';

/** How long to wait for a lock, and when a lock left by a dead writer may be broken. */
export interface LockOptions {
  timeoutMs: number;
  staleMs: number;
}

const inProcess = new Map<string, Promise<unknown>>();
const host = hostname();

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Creates the lock file with its owner already written: the content goes to a temp file that is then
 * hard-linked to the lock path (atomic, fails with EEXIST), so no lock is ever seen empty — a writer
 * killed at any moment leaves either no lock or one naming its (dead) pid. Filesystems without hard
 * links fall back to `open(…, 'wx')`.
 */
async function createLockFile(lockPath: string): Promise<void> {
  // A nonce makes every lock's content unique, so a lock judged stale is never mistaken for a new one.
  const owner = `${host}\n${process.pid}\n${randomBytes(6).toString('hex')}\n`;
  const tmp = `${lockPath}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(tmp, owner, { mode: 0o600, flag: 'wx' });
  try {
    await link(tmp, lockPath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV') throw error;
    const handle = await open(lockPath, 'wx', 0o600);
    try {
      await handle.writeFile(owner);
    } finally {
      await handle.close();
    }
  } finally {
    await unlink(tmp).catch(() => undefined);
  }
}

/** The lock's content when its owner is gone (or it is older than `staleMs`), else `null`. */
async function staleContent(lockPath: string, staleMs: number): Promise<string | null> {
  try {
    const [text, info] = await Promise.all([readFile(lockPath, 'utf8'), stat(lockPath)]);
    const [lockHost, pid] = text.split('\n');
    if (lockHost === host && Number(pid) > 0 && !processAlive(Number(pid))) return text;
    return Date.now() - info.mtimeMs > staleMs ? text : null;
  } catch {
    return null;
  }
}

/**
 * Breaks a stale lock unless another writer replaced it in the meantime. Breakers take turns through a
 * second lock file (`….break`): without it, two waiters could both judge the same dead lock, one break
 * it and take the lock, and the other's late `unlink` remove that new lock, letting both in. Returns
 * `busy` when another process is breaking the lock right now (the caller waits and tries again).
 */
async function breakLock(
  lockPath: string,
  judged: string,
  staleMs: number,
): Promise<'broken' | 'replaced' | 'busy'> {
  const breaker = `${lockPath}.break`;
  try {
    await createLockFile(breaker);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    // A breaker that died while breaking (it holds its lock for a few file operations) is removed.
    const stale = await staleContent(breaker, staleMs);
    if (stale !== null && (await readFile(breaker, 'utf8').catch(() => null)) === stale)
      await unlink(breaker).catch(() => undefined);
    return 'busy';
  }
  try {
    const now = await readFile(lockPath, 'utf8').catch(() => null);
    if (now !== judged) return 'replaced';
    await unlink(lockPath).catch(() => undefined);
    return 'broken';
  } finally {
    await unlink(breaker).catch(() => undefined);
  }
}

/** Takes the lock; `true` when a stale lock was broken on the way (a writer crashed). */
async function acquire(lockPath: string, options: LockOptions): Promise<boolean> {
  const deadline = Date.now() + options.timeoutMs;
  let delay = 2;
  let broke = false;
  for (;;) {
    try {
      await createLockFile(lockPath);
      return broke;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const stale = await staleContent(lockPath, options.staleMs);
    const outcome = stale === null ? 'busy' : await breakLock(lockPath, stale, options.staleMs);
    if (outcome === 'broken') broke = true;
    if (outcome !== 'busy') continue;
    if (Date.now() > deadline)
      throw new StoreConnectionError(
        `Timed out after ${options.timeoutMs} ms waiting for the lock file ${lockPath} (another process is writing the session; delete the file if no process is).`,
      );
    await new Promise((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, 50);
  }
}

/**
 * Runs `fn` while holding the lock of one session: writes are serialised within the process by a
 * promise chain, and across processes by an exclusive lock file (created atomically) holding the host name
 * and pid of its owner. A lock whose owner died (same host, pid gone) or older than `staleMs` is broken,
 * by one waiter at a time; `fn` is then told so (`brokeStale`), to clean up after the crashed writer.
 */
export async function withFileLock<T>(
  lockPath: string,
  options: LockOptions,
  fn: (brokeStale: boolean) => Promise<T>,
): Promise<T> {
  const previous = inProcess.get(lockPath) ?? Promise.resolve();
  const run = previous.then(
    () => locked(lockPath, options, fn),
    () => locked(lockPath, options, fn),
  );
  const settled = run.then(
    () => undefined,
    () => undefined,
  );
  inProcess.set(lockPath, settled);
  try {
    return await run;
  } finally {
    if (inProcess.get(lockPath) === settled) inProcess.delete(lockPath);
  }
}

async function locked<T>(
  lockPath: string,
  options: LockOptions,
  fn: (brokeStale: boolean) => Promise<T>,
): Promise<T> {
  const brokeStale = await acquire(lockPath, options);
  try {
    return await fn(brokeStale);
  } finally {
    await unlink(lockPath).catch(() => undefined);
  }
}
