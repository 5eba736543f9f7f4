import { spawn } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HOST_TAG, SELF } from './process-owner';
import { appendSlot, collectSlots, readHead, slotPath } from './slot-directory';

let dir: string;
beforeEach(async () => {
  dir = join(await mkdtemp(join(tmpdir(), 'agentkit-slots-')), 'session');
});
afterEach(async () => {
  await rm(join(dir, '..'), { recursive: true, force: true });
});

const files = async () => (await readdir(dir)).sort();
const temps = async () => (await readdir(dir)).filter((n) => n.endsWith('.tmp'));

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((r) => child.on('exit', r));
  return child.pid as number;
}

describe('appendSlot', () => {
  it('of concurrent appends after the same version exactly one lands, and leaves no temp file', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => appendSlot(dir, 0, { text: `writer ${i}\n` })),
    );
    expect(results.filter((r) => r === 1)).toHaveLength(1);
    expect(results.filter((r) => r === null)).toHaveLength(9);
    const head = await readHead(dir);
    expect(head).toEqual({ slot: 1, path: slotPath(dir, 1) });
    expect(await readFile(head!.path, 'utf8')).toBe(`writer ${results.indexOf(1)}\n`);
    expect(await files()).toEqual(['0000000000000001.json']);
  });

  it('writes nothing when the version it follows is no longer the current one', async () => {
    expect(await readHead(dir)).toBeNull();
    expect(await appendSlot(dir, 0, { text: 'a' })).toBe(1);
    expect(await appendSlot(dir, 0, { text: 'b' })).toBeNull();
    expect(await appendSlot(dir, 2, { text: 'c' })).toBeNull(); // a version that does not exist yet
    expect(await appendSlot(dir, 1, { text: 'd' })).toBe(2);
    expect(await readFile(slotPath(dir, 2), 'utf8')).toBe('d');
    expect(await temps()).toEqual([]);
  });

  it('a writer stalled before its link fails, even after its slot was superseded and collected around it', async () => {
    await appendSlot(dir, 0, { text: 'v1' });
    let wake = () => {};
    const stalled = appendSlot(
      dir,
      1,
      { text: 'stale' },
      { beforeLink: () => new Promise((r) => (wake = r)) },
    );
    while ((await temps()).length === 0) await new Promise((r) => setTimeout(r, 5));
    // Others move on and collect after every version.
    for (let n = 1; n <= 3; n++) {
      expect(await appendSlot(dir, n, { text: `v${n + 1}` })).toBe(n + 1);
      await collectSlots(dir, n + 1);
    }
    // Version 2 is kept: it is the name the stalled writer aims at, and freeing it would let it land.
    expect((await files()).filter((n) => !n.endsWith('.tmp'))).toEqual([
      '0000000000000002.json',
      '0000000000000004.json',
    ]);
    wake();
    expect(await stalled).toBeNull();
    expect(await readFile(slotPath(dir, 2), 'utf8')).toBe('v2');
    await collectSlots(dir, 4);
    expect(await files()).toEqual(['0000000000000004.json']);
  });

  it('a refusal just before the link, or an abort, writes nothing and leaves no temp file', async () => {
    const refusal = new Error('lease lost');
    await expect(
      appendSlot(dir, 0, { text: 'x' }, { beforeLink: () => Promise.reject(refusal) }),
    ).rejects.toBe(refusal);
    const controller = new AbortController();
    const reason = new Error('gave up');
    const aborted = appendSlot(dir, 0, { text: 'x' }, { signal: controller.signal });
    controller.abort(reason);
    await expect(aborted).rejects.toBe(reason);
    expect(await files()).toEqual([]);
  });

  it('links a file as it is, without copying it', async () => {
    await appendSlot(dir, 0, { text: 'big state' });
    expect(await appendSlot(dir, 1, { linkFrom: slotPath(dir, 1) })).toBe(2);
    expect((await stat(slotPath(dir, 2))).ino).toBe((await stat(slotPath(dir, 1))).ino);
    expect(await appendSlot(dir, 2, { linkFrom: join(dir, 'gone.json') })).toBeNull();
  });
});

describe('collectSlots', () => {
  it('removes dead writers’ temp files and what only they kept; keeps live and young foreign ones', async () => {
    for (let n = 0; n < 4; n++) await appendSlot(dir, n, { text: `v${n + 1}` });
    const dead = `${slotPath(dir, 1)}.${HOST_TAG}-${await deadPid()}--0badcafe.tmp`;
    const reusedPid = `${slotPath(dir, 1)}.${HOST_TAG}-${SELF.pid}-1-0badcafe.tmp`; // our pid, another start
    const live = `${slotPath(dir, 2)}.${HOST_TAG}-${SELF.pid}-${SELF.start}-0badcafe.tmp`;
    const foreign = `${slotPath(dir, 3)}.00000000-1-1-0badcafe.tmp`;
    const oldForeign = `${slotPath(dir, 1)}.00000000-2-2-0badcafe.tmp`;
    for (const temp of [dead, reusedPid, live, foreign, oldForeign]) await writeFile(temp, 'half a state');
    const longAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    await utimes(oldForeign, longAgo, longAgo);
    await collectSlots(dir, 4);
    const left = await files();
    expect(left).toEqual(
      [slotPath(dir, 2), live, slotPath(dir, 3), foreign, slotPath(dir, 4)]
        .map((p) => p.slice(dir.length + 1))
        .sort(),
    );
  });

  it('keeps the versions from `below` up (the caller’s own and newer), and tolerates a missing directory', async () => {
    for (let n = 0; n < 3; n++) await appendSlot(dir, n, { text: `v${n + 1}` });
    await collectSlots(dir, 2);
    expect(await files()).toEqual(['0000000000000002.json', '0000000000000003.json']);
    await collectSlots(join(dir, 'missing'), 3);
  });
});
