import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readdir, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { throwIfAborted } from '@agentkit/core/store';
import { HOST_TAG, SELF, pidGone } from './process-owner';

// A slot directory holds the versions of one thing (a session, a lease) as immutable files
// `0000000000000007.json`; the highest number is the current version. Appending version n + 1 is a
// compare-and-swap done by the kernel: `link(temp, "n+1.json")` fails with EEXIST when anyone else
// appended n + 1 first. Older versions are collected after an append, but never one that a writer in
// flight is about to take (see `appendSlot`), and the highest is never removed, so numbers never repeat.

const DIGITS = 16;
const SLOT = /^(\d{16})\.json$/;
/** `<slot>.json.<host tag>-<pid>-<process start>-<random>.tmp`: the slot a writer in flight will take, and its owner. */
const TEMP = /^(\d{16})\.json\.([0-9a-f]{8})-(\d+)-(\d*)-[0-9a-f]{8}\.tmp$/;
/** A temp file of another host is removed only when it is older than this (its owner cannot be asked). */
const FOREIGN_TEMP_MS = 60 * 60 * 1000;

/** The path of version `slot` in `dir`. */
export function slotPath(dir: string, slot: number): string {
  return join(dir, `${String(slot).padStart(DIGITS, '0')}.json`);
}

async function names(dir: string): Promise<string[]> {
  try {
    return await readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

function highest(entries: string[]): number {
  let max = 0;
  for (const name of entries) {
    const match = SLOT.exec(name);
    // A number no append can reach (beyond 2^53) is not a version: it would not even read back as itself.
    if (match && Number.isSafeInteger(Number(match[1]))) max = Math.max(max, Number(match[1]));
  }
  return max;
}

/** The current version of `dir`: its number and path, or `null` when it holds none (or does not exist). */
export async function readHead(dir: string): Promise<{ slot: number; path: string } | null> {
  const slot = highest(await names(dir));
  return slot === 0 ? null : { slot, path: slotPath(dir, slot) };
}

/** What an append writes: new text, or another file hard-linked as is (no copy). */
export type SlotContent = { text: string } | { linkFrom: string };

/**
 * Appends version `after + 1` to `dir` (created when missing) if `after` is still the current version
 * (`0`: none). Returns the new version's number, or `null` when another writer appended first (nothing
 * was written; re-read and decide again). `beforeLink` runs just before the final `link` and may throw
 * to refuse the write. The new version is fsynced, and so is the directory, before this returns.
 *
 * Why a stalled writer can never land: the temp file is named after the slot it will take and is
 * created before the writer checks that `after` is still current. A collector never removes a slot
 * that a live owner's temp file names, so if that slot appears meanwhile it stays, and the writer's
 * `link` fails with EEXIST however long it was frozen. If the check fails, nothing is linked.
 */
export async function appendSlot(
  dir: string,
  after: number,
  content: SlotContent,
  options: { beforeLink?: () => Promise<void>; signal?: AbortSignal | undefined } = {},
): Promise<number | null> {
  const slot = after + 1;
  const target = slotPath(dir, slot);
  const temp = `${target}.${HOST_TAG}-${SELF.pid}-${SELF.start}-${randomBytes(4).toString('hex')}.tmp`;
  const created = await mkdir(dir, { recursive: true, mode: 0o700 });
  if ('text' in content) await writeDurably(temp, content.text);
  else
    try {
      await link(content.linkFrom, temp);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null; // collected meanwhile
      throw error;
    }
  try {
    if (highest(await names(dir)) !== after) return null;
    await options.beforeLink?.();
    throwIfAborted(options.signal);
    try {
      await link(temp, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return null;
      throw error;
    }
    await syncDirectory(dir);
    // A directory made for this version must survive a power loss too: sync the parents that name them.
    if (created !== undefined)
      for (let parent = dirname(dir); ; parent = dirname(parent)) {
        await syncDirectory(parent);
        if (parent === dirname(created) || parent === dirname(parent)) break;
      }
    return slot;
  } finally {
    await unlink(temp).catch(() => undefined);
  }
}

/**
 * Removes the versions of `dir` below `below` (the caller's own, just appended) except those a live
 * writer's temp file names, and the temp files of writers that are gone (crashed). Best effort: a
 * failure leaves garbage that the next collection removes.
 */
export async function collectSlots(dir: string, below: number): Promise<void> {
  const entries = await names(dir).catch(() => [] as string[]);
  const wanted = new Set<number>();
  const garbage: string[] = [];
  for (const name of entries) {
    const temp = TEMP.exec(name);
    if (!temp) continue;
    if (await ownerGone(join(dir, name), temp[2] as string, Number(temp[3]), temp[4] as string))
      garbage.push(name);
    else wanted.add(Number(temp[1]));
  }
  for (const name of entries) {
    const version = SLOT.exec(name);
    if (version && Number(version[1]) < below && !wanted.has(Number(version[1]))) garbage.push(name);
  }
  await Promise.all(garbage.map((name) => unlink(join(dir, name)).catch(() => undefined)));
}

async function ownerGone(path: string, hostTag: string, pid: number, start: string): Promise<boolean> {
  if (hostTag === HOST_TAG) return pidGone(pid, start);
  const info = await stat(path).catch(() => null);
  return info !== null && Date.now() - info.mtimeMs > FOREIGN_TEMP_MS;
}

async function writeDurably(path: string, text: string): Promise<void> {
  const handle = await open(path, 'wx', 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(path).catch(() => undefined);
    throw error;
  }
  await handle.close();
}

async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Not supported everywhere (e.g. Windows); the link itself is atomic.
  }
}
