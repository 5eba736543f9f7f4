import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { withFileLock } from './file-lock';

/** Paths whose next `unlink` is held back this long (ms), to widen a race window on purpose. */
const slowUnlinks = new Map<string, number>();
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...real,
    unlink: async (path: string) => {
      const delay = slowUnlinks.get(String(path));
      if (delay !== undefined) {
        slowUnlinks.delete(String(path));
        await new Promise((r) => setTimeout(r, delay));
      }
      return real.unlink(path);
    },
  };
});

let dir: string;
beforeEach(async () => {
  dir = await fs.mkdtemp(join(tmpdir(), 'agentkit-lock-'));
});
afterEach(async () => {
  slowUnlinks.clear();
  await fs.rm(dir, { recursive: true, force: true });
});

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((r) => child.on('exit', r));
  return child.pid as number;
}

describe('withFileLock', () => {
  it('lets only one of two waiters in when both break the same lock left by a dead process', async () => {
    // Each waiter names the lock by another path (`sub/../x.lock`), which bypasses the in-process queue:
    // they contend through the file system only, like two processes.
    await fs.mkdir(join(dir, 'a'));
    await fs.mkdir(join(dir, 'b'));
    const lockA = `${dir}/a/../x.lock`;
    await fs.writeFile(join(dir, 'x.lock'), `${hostname()}\n${await deadPid()}\n`);
    // A's removal of the dead lock is slow: B breaks it too, meanwhile, and takes the lock.
    slowUnlinks.set(lockA, 100);
    let holders = 0;
    let worst = 0;
    const critical = async () => {
      holders++;
      worst = Math.max(worst, holders);
      await new Promise((r) => setTimeout(r, 150));
      holders--;
    };
    const options = { timeoutMs: 5_000, staleMs: 30_000 };
    await Promise.all([
      withFileLock(lockA, options, critical),
      withFileLock(`${dir}/b/../x.lock`, options, critical),
    ]);
    expect(worst).toBe(1);
    // Nothing is left behind: no lock, no breaker, no temp file.
    expect((await fs.readdir(dir)).sort()).toEqual(['a', 'b']);
  });
});
