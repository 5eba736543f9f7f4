import { execFileSync, spawn } from 'node:child_process';
import { mkdir, mkdtemp, open, readFile, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import {
  ConfigError,
  InvalidInputError,
  StoreDataError,
  type SessionSummary,
  createAgentState,
} from '@agentkit/core';
import { sessionStoreConformanceCases } from '@agentkit/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileSessionStore } from './file-session-store';
import { fileSegment } from './file-names';
import { HOST_TAG } from './process-owner';
import { formatRecordFile } from './record-file';
import { slotPath } from './slot-directory';

describe('FileSessionStore conformance', () => {
  const factory = async () => {
    const directory = await mkdtemp(join(tmpdir(), 'agentkit-fs-'));
    return {
      store: new FileSessionStore({ directory }),
      cleanup: () => rm(directory, { recursive: true, force: true }),
    };
  };
  for (const c of sessionStoreConformanceCases(factory)) it(c.name, c.run);
});

let directory: string;
let store: FileSessionStore;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'agentkit-fs-'));
  store = new FileSessionStore({ directory });
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

const key = { userId: 'u', agentId: 'a', sessionId: 's' };
const keyOf = (sessionId: string) => ({ userId: 'u', agentId: 'a', sessionId });
const agentDir = () => join(directory, '_u', '_a');

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => undefined,
    (e: unknown) => e,
  );
}

async function expectDataError(promise: Promise<unknown>, reason: RegExp, sessionId = 's'): Promise<void> {
  const error = await rejection(promise);
  expect(error).toBeInstanceOf(StoreDataError);
  expect((error as StoreDataError).session).toEqual(keyOf(sessionId));
  expect((error as Error).message).toMatch(reason);
}

/** A summary of session `sessionId` as a store writes it. */
function summaryOf(sessionId: string, version = 1, extra: Partial<SessionSummary> = {}): SessionSummary {
  const now = new Date().toISOString();
  return { ...keyOf(sessionId), version, createdAt: now, updatedAt: now, metadata: {}, ...extra };
}

/** Writes `text` as version `slot` of `sessionId` (bypassing the store, as a crash or a hand would). */
async function writeVersion(sessionId: string, text: string | Buffer, slot = 1): Promise<string> {
  const dir = join(agentDir(), fileSegment(sessionId));
  await mkdir(dir, { recursive: true });
  await writeFile(slotPath(dir, slot), text);
  return slotPath(dir, slot);
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((r) => child.on('exit', r));
  return child.pid as number;
}

describe('FileSessionStore layout', () => {
  it('keeps a session as a directory whose highest version is current; older versions are removed', async () => {
    const created = await store.upsertSession('u', 'a', 's', { metadata: { title: 't' } });
    await store.updateSessionState('u', 'a', 's', createAgentState({ sessionId: 's' }));
    const last = await store.upsertSession('u', 'a', 's', { metadata: { title: 'u' } });
    const dir = store.sessionDirectory(key);
    expect(relative(directory, dir)).toBe(join('_u', '_a', '_s'));
    expect(await readdir(dir)).toEqual(['0000000000000003.json']);
    const text = await readFile(join(dir, '0000000000000003.json'), 'utf8');
    // Valid JSON, with the summary alone on the first line (a listing reads nothing else).
    expect(JSON.parse(text)).toEqual({
      record: {
        ...key,
        version: 3,
        createdAt: created.createdAt,
        updatedAt: last.updatedAt,
        metadata: { title: 'u' },
      },
      state: last.state,
    });
    expect(JSON.parse(`${text.split('\n')[0]?.slice('{"record":'.length, -1)}`)).toEqual({
      ...key,
      version: 3,
      createdAt: created.createdAt,
      updatedAt: last.updatedAt,
      metadata: { title: 'u' },
    });
  });

  it('keeps the lease beside the session; a grant gives the session a new version, a hard link of the last', async () => {
    await store.upsertSession('u', 'a', 's');
    const dir = store.sessionDirectory(key);
    const before = await stat(join(dir, '0000000000000001.json'));
    const { token } = await store.acquireLease('u', 'a', 's');
    expect(await readdir(dir)).toEqual(['0000000000000002.json']);
    expect((await stat(join(dir, '0000000000000002.json'))).ino).toBe(before.ino);
    expect((await store.getSession('u', 'a', 's'))?.version).toBe(1); // same record, only the slot moved
    const lease = await readdir(`${dir}.lease`);
    expect(lease).toEqual(['0000000000000001.json']);
    expect(JSON.parse(await readFile(join(`${dir}.lease`, lease[0]!), 'utf8'))).toMatchObject({
      token,
      pid: process.pid,
      released: false,
    });
    // A lease on a session that does not exist guards its creation: the session gets a tombstone version.
    await store.acquireLease('u', 'a', 'new');
    expect(await store.getSession('u', 'a', 'new')).toBeNull();
    expect((await store.listSessions('u', 'a')).sessions.map((s) => s.sessionId)).toEqual(['s']);
  });

  it('keeps every path inside the directory whatever the ids', async () => {
    for (const id of ['..', '../..', '/etc/passwd', 'a/../../b', '\u0000', 'C:\\x', 'x'.repeat(1000)]) {
      await store.upsertSession(id, id, id);
      await store.acquireLease(id, id, id);
      const path = store.sessionDirectory({ userId: id, agentId: id, sessionId: id });
      expect(relative(directory, path).startsWith('..')).toBe(false);
      expect(relative(directory, path).split(/[\\/]/)).toHaveLength(3);
      expect((await store.getSession(id, id, id))?.sessionId).toBe(id);
      expect((await store.listSessions(id, id)).sessions.map((s) => s.sessionId)).toEqual([id]);
    }
    expect((await readdir(directory)).every((n) => /^[_~]/.test(n))).toBe(true);
  });

  it('rejects a missing directory and a bad maxRecordBytes', () => {
    expect(() => new FileSessionStore({} as never)).toThrow(ConfigError);
    for (const maxRecordBytes of [0, 100, 1.5, Number.NaN, 2 ** 40])
      expect(() => new FileSessionStore({ directory: 'x', maxRecordBytes })).toThrow(ConfigError);
    expect(new FileSessionStore({ directory: 'x' }).maxRecordBytes).toBe(256 * 1024 * 1024);
  });
});

describe('FileSessionStore with files of storage-fs 0.1', () => {
  /** A session as 0.1 wrote it: `<session>.json`, plus the lock and temp files a crash left beside it. */
  async function legacySession(sessionId: string, version: number): Promise<string> {
    await mkdir(agentDir(), { recursive: true });
    const file = join(agentDir(), `${fileSegment(sessionId)}.json`);
    const state = { ...createAgentState({ sessionId }), plugins: { old: true } };
    const summary = summaryOf(sessionId, version, {
      metadata: { v: '0.1' },
      createdAt: '2025-01-01T00:00:00.000Z',
    });
    await writeFile(file, formatRecordFile(summary, JSON.stringify(state)));
    await writeFile(`${file}.lock`, 'host\n123\n');
    await writeFile(`${file}.123-deadbeef.tmp`, 'half');
    await writeFile(`${file}.lock.123-deadbeef.tmp`, 'host\n123\n');
    return file;
  }

  it('reads and lists a 0.1 file, and moves it into a version directory on the next write', async () => {
    await legacySession('s', 7);
    await store.upsertSession('u', 'a', 'other');
    expect((await store.getSession('u', 'a', 's'))?.state.plugins).toEqual({ old: true });
    expect((await store.listSessions('u', 'a')).sessions.map((s) => [s.sessionId, s.version])).toEqual([
      ['other', 1],
      ['s', 7],
    ]);
    const next = await store.updateSessionState('u', 'a', 's', createAgentState({ sessionId: 's' }), {
      expectedVersion: 7,
    });
    expect(next.version).toBe(8);
    expect(next.metadata).toEqual({ v: '0.1' });
    expect((await readdir(agentDir())).sort()).toEqual(['_other', '_s']);
    expect(await readdir(store.sessionDirectory(key))).toEqual(['0000000000000001.json']);
    expect(await store.getSession('u', 'a', 's')).toEqual(next);
  });

  it('deletes a 0.1 session, and fences one when its lease is taken', async () => {
    await legacySession('s', 3);
    expect(await store.deleteSession('u', 'a', 's')).toBe(true);
    expect(await store.getSession('u', 'a', 's')).toBeNull();
    expect(await store.deleteSession('u', 'a', 's')).toBe(false);
    expect((await readdir(agentDir())).sort()).toEqual(['_s']);
    await legacySession('t', 4);
    await store.acquireLease('u', 'a', 't');
    expect((await store.getSession('u', 'a', 't'))?.version).toBe(4);
    expect((await readdir(agentDir())).sort()).toEqual(['_s', '_t', '_t.lease']);
  });
});

describe('FileSessionStore corrupt records', () => {
  it('a corrupt version gives StoreDataError naming the session for reads and writes; it can be deleted', async () => {
    await store.upsertSession('u', 'a', 's');
    const file = await writeVersion('s', '{"record":{"userId":"u"', 2);
    await expectDataError(store.getSession('u', 'a', 's'), /not valid JSON/);
    await expectDataError(store.updateSessionState('u', 'a', 's', createAgentState()), /not valid JSON/);
    await expectDataError(store.upsertSession('u', 'a', 's'), /not valid JSON/);
    const good = createAgentState({ sessionId: 's' });
    const head = summaryOf('s', 2);
    for (const [record, state, reason] of [
      [head, { ...good, schemaVersion: 42 }, /schemaVersion 42/],
      [{ ...head, sessionId: 'other' }, good, /another session/],
      [{ ...head, version: 0 }, good, /version 0/],
      [{ ...head, version: '2' }, good, /version "2" is not a number/],
      [{ ...head, createdAt: 'soon' }, good, /createdAt "soon" is not a timestamp/],
      [[], good, /"record" is not an object/],
    ] as const) {
      await writeFile(file, JSON.stringify({ record, state }));
      await expectDataError(store.getSession('u', 'a', 's'), reason);
    }
    // A hand-edited (pretty-printed) but valid file still loads and can be written after.
    await writeFile(file, JSON.stringify({ record: head, state: good }, null, 2));
    expect((await store.getSession('u', 'a', 's'))?.state).toEqual(good);
    expect((await store.updateSessionState('u', 'a', 's', good)).version).toBe(3);
    await writeFile(await writeVersion('s', 'garbage', 4), 'garbage');
    expect(await store.deleteSession('u', 'a', 's')).toBe(true);
    expect((await store.upsertSession('u', 'a', 's')).version).toBe(1);
    // Even a directory where the current version belongs: unreadable, yet deletable.
    await mkdir(slotPath(store.sessionDirectory(key), 9));
    await expectDataError(store.getSession('u', 'a', 's'), /EISDIR/);
    // Its lease cannot fence it (no hard link of a directory): a StoreDataError, and no lease is left held.
    await expectDataError(store.acquireLease('u', 'a', 's'), /version 0000000000000009.json is a directory/);
    expect(await store.getLease('u', 'a', 's')).toBeNull();
    expect(await store.deleteSession('u', 'a', 's')).toBe(true);
    expect(await store.getSession('u', 'a', 's')).toBeNull();
  });

  it('a listing returns the good sessions and names every bad one, whatever is wrong with it', async () => {
    const limited = new FileSessionStore({ directory, maxRecordBytes: 64 * 1024 });
    for (const id of ['good1', 'good2']) await store.upsertSession('u', 'a', id);
    await mkdir(agentDir(), { recursive: true });
    await writeFile(
      join(agentDir(), '_good3.json'),
      formatRecordFile(summaryOf('good3'), JSON.stringify(createAgentState())),
    );
    // Listing reads summaries only: a session whose state is bad is listed (and fails to load).
    await writeVersion('bad-state', formatRecordFile(summaryOf('bad-state'), '{"schemaVersion":42}'));
    const bad: Record<string, RegExp> = {
      truncated: /not valid JSON/,
      empty: /not valid JSON/,
      binary: /not valid JSON/,
      'other-ids': /another session/,
      'zero-version': /version 0/,
      'bad-date': /createdAt "soon" is not a timestamp/,
      'array-metadata': /metadata is not a JSON object/,
      'no-state': /not an object with "record" and "state"/,
      'huge-summary': /larger than maxRecordBytes/,
      'dir-as-version': /cannot be read as a session.*EISDIR/,
      'file-as-session': /cannot be read as a session.*ENOTDIR/,
      loop: /cannot be read as a session.*ELOOP/,
      'legacy-garbage': /not valid JSON/,
    };
    await writeVersion('truncated', formatRecordFile(summaryOf('truncated'), '{}').slice(0, 30));
    await writeVersion('empty', '');
    await writeVersion('binary', Buffer.from([0xff, 0xfe, 0x00, 0x0a, 0x80]));
    await writeVersion('other-ids', formatRecordFile(summaryOf('good1'), '{}'));
    await writeVersion('zero-version', formatRecordFile(summaryOf('zero-version', 0), '{}'));
    await writeVersion('bad-date', formatRecordFile(summaryOf('bad-date', 1, { createdAt: 'soon' }), '{}'));
    await writeVersion(
      'array-metadata',
      formatRecordFile(summaryOf('array-metadata', 1, { metadata: [] as never }), '{}'),
    );
    await writeVersion('no-state', JSON.stringify({ record: summaryOf('no-state') }));
    await writeVersion(
      'huge-summary',
      formatRecordFile(summaryOf('huge-summary', 1, { metadata: { x: 'y'.repeat(100_000) } }), '{}'),
    );
    await mkdir(slotPath(join(agentDir(), '_dir-as-version'), 1), { recursive: true });
    await writeFile(join(agentDir(), '_file-as-session'), 'not a directory');
    await symlink(join(agentDir(), '_loop'), join(agentDir(), '_loop'));
    await writeFile(join(agentDir(), '_legacy-garbage.json'), 'garbage\n');
    // A long id's name is a hash: with the file unreadable, the listing can only name the hash.
    const hashed = fileSegment('z'.repeat(300));
    await writeVersion('z'.repeat(300), 'garbage');
    // Not sessions at all: a deleted one, a creation that crashed before its first version, other files.
    await store.upsertSession('u', 'a', 'deleted');
    await store.deleteSession('u', 'a', 'deleted');
    await mkdir(join(agentDir(), '_crashed'));
    await writeFile(
      `${slotPath(join(agentDir(), '_crashed'), 1)}.${HOST_TAG}-${await deadPid()}--0badcafe.tmp`,
      'half',
    );
    await writeFile(join(agentDir(), 'README.txt'), 'hello');
    await writeFile(join(agentDir(), '.DS_Store'), '');

    const page = await limited.listSessions('u', 'a', { limit: 100 });
    expect(page.sessions.map((s) => s.sessionId).sort()).toEqual(['bad-state', 'good1', 'good2', 'good3']);
    const skipped = Object.fromEntries(page.skipped.map((s) => [s.sessionId, s.reason]));
    expect(Object.keys(skipped).sort()).toEqual([...Object.keys(bad), hashed].sort());
    for (const [id, reason] of Object.entries(bad)) expect(skipped[id]).toMatch(reason);
    expect(skipped[hashed]).toMatch(/does not match its file name/);
    // Each bad one, loaded alone, is a StoreDataError too (never a connection error).
    for (const id of Object.keys(bad)) await expectDataError(limited.getSession('u', 'a', id), bad[id]!, id);
    await expectDataError(store.getSession('u', 'a', 'bad-state'), /schemaVersion 42/, 'bad-state');

    // Paged: unreadable sessions come after the readable ones and count towards the pages.
    const seen: string[] = [];
    const skippedSeen: string[] = [];
    let cursor: string | null = null;
    do {
      const next: Awaited<ReturnType<FileSessionStore['listSessions']>> = await limited.listSessions(
        'u',
        'a',
        {
          limit: 3,
          cursor,
        },
      );
      expect(next.sessions.length + next.skipped.length).toBeLessThanOrEqual(3);
      if (skippedSeen.length > 0) expect(next.sessions).toEqual([]); // none readable after a skipped one
      seen.push(...next.sessions.map((s) => s.sessionId));
      skippedSeen.push(...next.skipped.map((s) => s.sessionId));
      cursor = next.cursor;
    } while (cursor !== null);
    expect(seen.sort()).toEqual(['bad-state', 'good1', 'good2', 'good3']);
    expect(skippedSeen.sort()).toEqual(Object.keys(skipped).sort());
  });

  it('a current version that cannot be opened (a dangling link) is a StoreDataError, skipped by a listing', async () => {
    await store.upsertSession('u', 'a', 'good');
    const dir = join(agentDir(), fileSegment('dangling'));
    await mkdir(dir, { recursive: true });
    await symlink(join(dir, 'nowhere.json'), slotPath(dir, 1));
    // Not "kept vanishing while being read" (a StoreConnectionError, worth retrying): it never comes back.
    await expectDataError(store.getSession('u', 'a', 'dangling'), /cannot be opened/, 'dangling');
    await expectDataError(store.upsertSession('u', 'a', 'dangling'), /cannot be opened/, 'dangling');
    const page = await store.listSessions('u', 'a');
    expect(page.sessions.map((s) => s.sessionId)).toEqual(['good']);
    expect(page.skipped).toEqual([
      { sessionId: 'dangling', reason: expect.stringMatching(/cannot be opened/) },
    ]);
    // A lease still fences it (a link of the link), and it can be deleted.
    const lease = await store.acquireLease('u', 'a', 'dangling');
    await expectDataError(store.getSession('u', 'a', 'dangling'), /cannot be opened/, 'dangling');
    expect(await store.deleteSession('u', 'a', 'dangling', { leaseToken: lease.token })).toBe(true);
    expect(await store.getSession('u', 'a', 'dangling')).toBeNull();
  });

  it('a FIFO where a version belongs is a StoreDataError at once (opening it would wait for a writer forever)', async () => {
    await store.upsertSession('u', 'a', 'good');
    await store.upsertSession('u', 'a', 'fifo');
    const dir = join(agentDir(), fileSegment('fifo'));
    await rm(slotPath(dir, 1));
    execFileSync('mkfifo', [slotPath(dir, 1)]);
    const page = await store.listSessions('u', 'a');
    expect(page.sessions.map((s) => s.sessionId)).toEqual(['good']);
    expect(page.skipped).toEqual([
      { sessionId: 'fifo', reason: expect.stringMatching(/not a regular file/) },
    ]);
    await expectDataError(store.getSession('u', 'a', 'fifo'), /not a regular file/, 'fifo');
    expect(await store.deleteSession('u', 'a', 'fifo')).toBe(true);
  }, 10_000);

  it('a file named like a version beyond any version the store can reach is not taken for the current one', async () => {
    await store.upsertSession('u', 'a', 's', { metadata: { n: 1 } });
    const dir = store.sessionDirectory(key);
    // 16 digits, but more than Number.MAX_SAFE_INTEGER: it reads back as another number.
    await writeFile(join(dir, '9999999999999999.json'), 'garbage');
    expect((await store.getSession('u', 'a', 's'))?.metadata).toEqual({ n: 1 });
    expect((await store.upsertSession('u', 'a', 's', { metadata: { n: 2 } })).version).toBe(2);
    const lease = await store.acquireLease('u', 'a', 's');
    expect(await store.releaseLease('u', 'a', 's', lease.token)).toBe(true);
    expect((await store.listSessions('u', 'a')).sessions.map((s) => s.metadata)).toEqual([{ n: 2 }]);
  });

  it('a lease directory deleted under a holder does not let tokens start over: the stale holder writes nothing', async () => {
    await store.upsertSession('u', 'a', 's', { metadata: { n: 1 } });
    const stale = await store.acquireLease('u', 'a', 's');
    await rm(`${store.sessionDirectory(key)}.lease`, { recursive: true, force: true });
    const next = await store.acquireLease('u', 'a', 's');
    expect(next.token).toBeGreaterThan(stale.token);
    await expect(
      store.upsertSession('u', 'a', 's', { metadata: { n: 'stale' }, leaseToken: stale.token }),
    ).rejects.toMatchObject({ code: 'LEASE_LOST' });
    expect((await store.upsertSession('u', 'a', 's', { leaseToken: next.token })).metadata).toEqual({ n: 1 });
  });

  it('a damaged lease file counts as no lease; tokens still only grow', async () => {
    const first = await store.acquireLease('u', 'a', 's');
    const leaseDir = `${store.sessionDirectory(key)}.lease`;
    const leaseFile = join(leaseDir, (await readdir(leaseDir))[0]!);
    await writeFile(leaseFile, 'garbage');
    expect(await store.getLease('u', 'a', 's')).toBeNull();
    const second = await store.acquireLease('u', 'a', 's');
    expect(second.token).toBeGreaterThan(first.token);
    await expect(store.upsertSession('u', 'a', 's', { leaseToken: first.token })).rejects.toMatchObject({
      code: 'LEASE_LOST',
    });
    // Damaged otherwise: a directory, a symlink loop or a FIFO where the lease version belongs.
    for (const damage of ['dir', 'loop', 'fifo'] as const) {
      const current = join(leaseDir, (await readdir(leaseDir)).sort().at(-1)!);
      await rm(current);
      if (damage === 'dir') await mkdir(current);
      else if (damage === 'loop') await symlink(current, current);
      else execFileSync('mkfifo', [current]);
      expect(await store.getLease('u', 'a', 's'), damage).toBeNull();
      const next = await store.acquireLease('u', 'a', 's');
      expect(
        (await store.upsertSession('u', 'a', 's', { leaseToken: next.token })).version,
        damage,
      ).toBeGreaterThan(0);
    }
  });
});

describe('FileSessionStore sizes', () => {
  it('an oversized version is a StoreDataError, found with stat before anything is read', async () => {
    await store.upsertSession('u', 'a', 'big', { metadata: { big: true } });
    await new Promise((r) => setTimeout(r, 5)); // newer, so listed first
    await store.upsertSession('u', 'a', 'small');
    // 600 MB (sparse): more than maxRecordBytes, and more than one string can hold.
    const handle = await open(join(store.sessionDirectory(keyOf('big')), '0000000000000001.json'), 'r+');
    await handle.truncate(600 * 1024 * 1024);
    await handle.close();
    await expectDataError(store.getSession('u', 'a', 'big'), /larger than maxRecordBytes/, 'big');
    // A listing reads only the summary line, so the session is still listed; its state needs a larger limit.
    const { sessions } = await store.listSessions('u', 'a');
    expect(sessions.map((s) => [s.sessionId, s.metadata])).toEqual([
      ['small', {}],
      ['big', { big: true }],
    ]);
    // A write replaces the state without reading it; delete needs no read either.
    expect(
      (await store.updateSessionState('u', 'a', 'big', createAgentState({ sessionId: 'big' }))).version,
    ).toBe(2);
    expect(await store.deleteSession('u', 'a', 'small')).toBe(true);
  });

  it('a write larger than maxRecordBytes is refused and writes nothing', async () => {
    const limited = new FileSessionStore({ directory, maxRecordBytes: 4096 });
    const created = await limited.upsertSession('u', 'a', 's');
    const state = { ...createAgentState({ sessionId: 's' }), plugins: { blob: 'x'.repeat(5000) } };
    const error = await rejection(limited.updateSessionState('u', 'a', 's', state));
    expect(error).toBeInstanceOf(InvalidInputError);
    expect((error as Error).message).toMatch(/maxRecordBytes \(4096\)/);
    expect(await limited.getSession('u', 'a', 's')).toEqual(created);
    expect(await readdir(limited.sessionDirectory(key))).toEqual(['0000000000000001.json']);
  });
});

describe('FileSessionStore crash leftovers and aborts', () => {
  it('the next write removes the temp files of crashed writers; a listing ignores them', async () => {
    const state = createAgentState({ sessionId: 's' });
    const saved = await store.upsertSession('u', 'a', 's', { state, metadata: { n: 1 } });
    const dir = store.sessionDirectory(key);
    const text = await readFile(join(dir, '0000000000000001.json'), 'utf8');
    const pid = await deadPid();
    await writeFile(`${slotPath(dir, 2)}.${HOST_TAG}-${pid}--0badcafe.tmp`, text.slice(0, 40));
    await writeFile(`${slotPath(dir, 2)}.${HOST_TAG}-${pid}--1badcafe.tmp`, text.replace('"n":1', '"n":2'));
    expect(await store.getSession('u', 'a', 's')).toEqual(saved);
    expect((await store.listSessions('u', 'a')).sessions.map((s) => s.sessionId)).toEqual(['s']);
    expect((await store.updateSessionState('u', 'a', 's', state, { expectedVersion: 1 })).version).toBe(2);
    expect((await store.getSession('u', 'a', 's'))?.metadata).toEqual({ n: 1 });
    expect(await readdir(dir)).toEqual(['0000000000000002.json']);
  });

  it('a write aborted while in flight rejects with the reason and writes nothing', async () => {
    const created = await store.upsertSession('u', 'a', 's');
    const controller = new AbortController();
    const reason = new Error('client went away');
    const write = store.updateSessionState('u', 'a', 's', createAgentState({ sessionId: 's' }), {
      signal: controller.signal,
    });
    controller.abort(reason);
    expect(await rejection(write)).toBe(reason);
    expect(await store.getSession('u', 'a', 's')).toEqual(created);
    expect(await readdir(store.sessionDirectory(key))).toEqual(['0000000000000001.json']);
    const listing = new AbortController();
    const list = store.listSessions('u', 'a', { signal: listing.signal });
    listing.abort(reason);
    expect(await rejection(list)).toBe(reason);
  });

  it('the lease of a process that died is free at once; its token writes nothing', async () => {
    await store.upsertSession('u', 'a', 's');
    const script = `
      const { FileSessionStore } = await import(${JSON.stringify(new URL('./file-session-store.ts', import.meta.url).href)});
      const store = new FileSessionStore({ directory: ${JSON.stringify(directory)} });
      const grant = await store.acquireLease('u', 'a', 's', { ttlMs: 600000, owner: 'doomed' });
      process.stdout.write(JSON.stringify(grant));`;
    const child = spawn(
      process.execPath,
      ['--conditions=@agentkit/source', '--import', 'tsx', '--input-type=module', '-e', script],
      {
        cwd: dirname(new URL(import.meta.url).pathname),
      },
    );
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    await new Promise((r) => child.on('exit', r));
    const grant = JSON.parse(out) as { token: number; owner: string; expiresAt: number };
    expect(grant.owner).toBe('doomed');
    expect(grant.expiresAt).toBeGreaterThan(Date.now() + 500_000); // far from expired…
    expect(await store.getLease('u', 'a', 's')).toBeNull(); // …yet free: its process is gone
    expect((await store.upsertSession('u', 'a', 's')).version).toBe(2); // no SessionBusyError
    const next = await store.acquireLease('u', 'a', 's');
    expect(next.token).toBeGreaterThan(grant.token);
    await expect(store.upsertSession('u', 'a', 's', { leaseToken: grant.token })).rejects.toMatchObject({
      code: 'LEASE_LOST',
    });
  }, 30_000);
});

describe('FileSessionStore listing', () => {
  it('reads only the summary line of each session (a listing never loads whole states)', async () => {
    await store.upsertSession('u', 'a', 'small');
    await new Promise((r) => setTimeout(r, 5)); // newer, so listed first
    const big = await store.upsertSession('u', 'a', 'big', { metadata: { big: true } });
    // A 3 GiB (sparse) version: more than a whole-file read could even hold in one string.
    const handle = await open(join(store.sessionDirectory(keyOf('big')), '0000000000000001.json'), 'r+');
    await handle.truncate(3 * 2 ** 30);
    await handle.close();
    const { sessions, skipped } = await store.listSessions('u', 'a');
    expect(sessions.map((s) => [s.sessionId, s.version, s.metadata])).toEqual([
      ['big', big.version, { big: true }],
      ['small', 1, {}],
    ]);
    expect(skipped).toEqual([]);
  });
});
