import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, open, readFile, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ConfigError,
  StoreConnectionError,
  StoreDataError,
  type AgentState,
  createAgentState,
} from '@agentkit/core';
import { sessionStoreConformanceCases } from '@agentkit/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileSessionStore } from './file-session-store';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

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
const fileNameOf = (path: string) => path.slice(dirname(path).length + 1);

function worker(args: string[]): ChildProcess {
  return spawn(
    process.execPath,
    ['--conditions=@agentkit/source', '--import', 'tsx', 'test/fs-worker.ts', ...args],
    {
      cwd: packageDir,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
}

async function finished(child: ChildProcess): Promise<string> {
  let out = '';
  let err = '';
  child.stdout?.on('data', (d) => (out += d));
  child.stderr?.on('data', (d) => (err += d));
  const code = await new Promise((r) => child.on('exit', r));
  if (code !== 0) throw new Error(`worker failed (${code}): ${err}`);
  return out;
}

async function expectDataError(promise: Promise<unknown>, reason: RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StoreDataError);
  expect((error as StoreDataError).session).toEqual(key);
  expect((error as Error).message).toMatch(reason);
}

describe('FileSessionStore files', () => {
  it('writes one valid JSON file per session, inside the directory whatever the ids', async () => {
    const record = await store.upsertSession('u', 'a', 's', { metadata: { title: 't' } });
    const file = store.file(key);
    expect(relative(directory, file)).toBe(join('_u', '_a', '_s.json'));
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({
      record: {
        userId: 'u',
        agentId: 'a',
        sessionId: 's',
        version: 1,
        createdAt: record.createdAt,
        updatedAt: record.updatedAt,
        metadata: { title: 't' },
      },
      state: record.state,
    });
    for (const id of ['..', '../..', '/etc/passwd', 'a/../../b', '\u0000', 'C:\\x', 'x'.repeat(1000)]) {
      await store.upsertSession(id, id, id);
      const path = store.file({ userId: id, agentId: id, sessionId: id });
      expect(relative(directory, path).startsWith('..')).toBe(false);
      expect(relative(directory, path).split(/[\\/]/)).toHaveLength(3);
      expect((await store.getSession(id, id, id))?.sessionId).toBe(id);
    }
    expect((await readdir(directory)).every((n) => /^[_~]/.test(n))).toBe(true);
  });

  it('rejects a missing directory option', () => {
    expect(() => new FileSessionStore({} as never)).toThrow(ConfigError);
    expect(() => new FileSessionStore({ directory: 'x', lockTimeoutMs: -1 })).toThrow(ConfigError);
  });

  it('a corrupt file gives StoreDataError naming the session, for get, writes and listing', async () => {
    await store.upsertSession('u', 'a', 's');
    const file = store.file(key);
    await writeFile(file, '{"record":{"userId":"u"');
    await expectDataError(store.getSession('u', 'a', 's'), /not valid JSON/);
    await expectDataError(store.updateSessionState('u', 'a', 's', createAgentState()), /not valid JSON/);
    await expectDataError(store.listSessions('u', 'a'), /not valid JSON/);
    const good = { ...createAgentState({ sessionId: 's' }) };
    const head = {
      userId: 'u',
      agentId: 'a',
      sessionId: 's',
      version: 1,
      createdAt: new Date().toISOString(),
      updatedAt: new Date().toISOString(),
      metadata: {},
    };
    await writeFile(file, JSON.stringify({ record: head, state: { ...good, schemaVersion: 42 } }));
    await expectDataError(store.getSession('u', 'a', 's'), /schemaVersion 42/);
    await writeFile(file, JSON.stringify({ record: { ...head, sessionId: 'other' }, state: good }));
    await expectDataError(store.getSession('u', 'a', 's'), /another session/);
    await writeFile(file, JSON.stringify({ record: { ...head, version: 0 }, state: good }, null, 2));
    await expectDataError(store.getSession('u', 'a', 's'), /version 0/);
    // JSON files keep the version as a number; text (which core accepts from text-only stores) is corrupt here.
    await writeFile(file, JSON.stringify({ record: { ...head, version: '1' }, state: good }));
    await expectDataError(store.getSession('u', 'a', 's'), /version "1" is not a number/);
    await writeFile(file, JSON.stringify({ record: { ...head, updatedAt: 'soon' }, state: good }));
    await expectDataError(store.listSessions('u', 'a'), /updatedAt "soon" is not a timestamp/);
    // A hand-edited (pretty-printed) but valid file still loads.
    await writeFile(file, JSON.stringify({ record: head, state: good }, null, 2));
    expect((await store.getSession('u', 'a', 's'))?.state).toEqual(good);
    expect((await store.updateSessionState('u', 'a', 's', good)).version).toBe(2);
    expect(await store.deleteSession('u', 'a', 's')).toBe(true);
  });
});

describe('FileSessionStore listing', () => {
  it('reads only the summary line of each file (a listing never loads whole states)', async () => {
    await store.upsertSession('u', 'a', 'small');
    const big = await store.upsertSession('u', 'a', 'big', { metadata: { big: true } });
    // A 3 GiB (sparse) session file: more than a whole-file read can even hold in one string.
    const handle = await open(store.file({ ...key, sessionId: 'big' }), 'r+');
    try {
      await handle.truncate(3 * 2 ** 30);
    } finally {
      await handle.close();
    }
    const { sessions } = await store.listSessions('u', 'a');
    expect(sessions.map((s) => [s.sessionId, s.version, s.metadata])).toEqual([
      ['big', big.version, { big: true }],
      ['small', 1, {}],
    ]);
  });
});

describe('FileSessionStore crash safety', () => {
  it('a leftover or half-written temp file from a crashed write changes nothing', async () => {
    const state = createAgentState({ sessionId: 's' });
    const saved = await store.upsertSession('u', 'a', 's', { state, metadata: { n: 1 } });
    const file = store.file(key);
    await writeFile(`${file}.99999-deadbeef.tmp`, (await readFile(file, 'utf8')).slice(0, 40));
    await writeFile(`${file}.99998-deadbeef.tmp`, (await readFile(file, 'utf8')).replace('"n":1', '"n":2'));
    expect(await store.getSession('u', 'a', 's')).toEqual(saved);
    expect((await store.listSessions('u', 'a')).sessions.map((s) => s.sessionId)).toEqual(['s']);
    const next = await store.updateSessionState('u', 'a', 's', state, { expectedVersion: 1 });
    expect(next.version).toBe(2);
    expect((await store.getSession('u', 'a', 's'))?.metadata).toEqual({ n: 1 });
  });

  it('a writer killed at random moments leaves the old or the new version, and the next writer gets in', async () => {
    await store.upsertSession('u', 'a', 'crashy');
    const crashyKey = { userId: 'u', agentId: 'a', sessionId: 'crashy' };
    let lastSeen = -1;
    for (let round = 0; round < 4; round++) {
      const child = worker(['rewrite', directory]);
      await new Promise<void>((resolve) => child.stdout?.once('data', () => resolve()));
      await new Promise((r) => setTimeout(r, 20 + Math.random() * 80));
      const exited = new Promise((r) => child.on('exit', r));
      child.kill('SIGKILL');
      await exited;
      const record = await store.getSession('u', 'a', 'crashy');
      const n = record?.state.plugins.n as number;
      expect(typeof n).toBe('number');
      expect(record?.state.plugins.payload).toBe(`${n}:${'x'.repeat(200_000)}`);
      expect(n).toBeGreaterThanOrEqual(0);
      lastSeen = n;
      // The killed writer may have left its lock and a temp file behind; the next write must still work.
      const after = await store.updateSessionState('u', 'a', 'crashy', record!.state, {
        expectedVersion: record!.version,
      });
      expect(after.version).toBe(record!.version + 1);
      expect(store.file(crashyKey)).toBeTruthy();
    }
    expect(lastSeen).toBeGreaterThanOrEqual(0);
  }, 60_000);
});

describe('FileSessionStore locks', () => {
  it('breaks a lock left by a dead process', async () => {
    await store.upsertSession('u', 'a', 's');
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => dead.on('exit', r));
    const { hostname } = await import('node:os');
    await writeFile(`${store.file(key)}.lock`, `${hostname()}\n${dead.pid}\n`);
    expect(
      (await store.updateSessionState('u', 'a', 's', createAgentState({ sessionId: 's' }))).version,
    ).toBe(2);
  });

  it('cleans up the temp file of a writer that died holding the lock', async () => {
    await store.upsertSession('u', 'a', 's');
    const dead = spawn(process.execPath, ['-e', '0']);
    await new Promise((r) => dead.on('exit', r));
    const { hostname } = await import('node:os');
    const file = store.file(key);
    await writeFile(`${file}.lock`, `${hostname()}\n${dead.pid}\n`);
    await writeFile(`${file}.${dead.pid}-0badcafe.tmp`, 'half a state');
    await store.updateSessionState('u', 'a', 's', createAgentState({ sessionId: 's' }));
    expect((await readdir(dirname(file))).sort()).toEqual([`${fileNameOf(file)}`]);
  });

  it('breaks a lock older than staleLockMs, and times out on a live one', async () => {
    const quick = new FileSessionStore({ directory, lockTimeoutMs: 150, staleLockMs: 5_000 });
    await quick.upsertSession('u', 'a', 's');
    const lock = `${quick.file(key)}.lock`;
    await writeFile(lock, `another-host\n1\n`);
    const started = Date.now();
    const error = await quick.updateSessionState('u', 'a', 's', createAgentState()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreConnectionError);
    expect((error as Error).message).toMatch(/lock file/);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect((await quick.getSession('u', 'a', 's'))?.version).toBe(1);
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    expect(
      (await quick.updateSessionState('u', 'a', 's', createAgentState({ sessionId: 's' }))).version,
    ).toBe(2);
  });

  it('processes incrementing one session concurrently lose no update', async () => {
    const initial: AgentState = {
      ...createAgentState({ sessionId: 'counter' }),
      plugins: { counter: 0, log: [] },
    };
    await store.upsertSession('u', 'a', 'counter', { state: initial });
    const outputs = await Promise.all(
      [0, 1, 2].map((i) => finished(worker(['increment', directory, '15', `w${i}`]))),
    );
    const record = await store.getSession('u', 'a', 'counter');
    expect(record?.state.plugins.counter).toBe(45);
    expect(record?.version).toBe(46);
    expect(new Set(record?.state.plugins.log as string[]).size).toBe(45);
    const conflicts = outputs.reduce((n, o) => n + (JSON.parse(o) as { conflicts: number }).conflicts, 0);
    expect(conflicts).toBeGreaterThanOrEqual(0);
  }, 60_000);
});
