import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { assistantMsg, ConfigError, type DataBlock, type ToolResultBlock, textBlock } from '@agentkit/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { extensionFor, FileOffloader, type FileOffloaderOptions } from './file-offloader';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const image = (name: string): DataBlock => ({
  type: 'data',
  id: `id-${name}`,
  name,
  source: { type: 'base64', data: PNG, mediaType: 'image/png' },
});
const sha = createHash('sha256').update(PNG).digest('hex');

let dir: string;
/** An offloader of user `u1` and agent `a1` on the test directory. */
const offloader = (options: Partial<FileOffloaderOptions> = {}) =>
  new FileOffloader({ directory: dir, userId: 'u1', agentId: 'a1', ...options });
/** Where session `s` of `u1`/`a1` lives, as returned paths spell it. */
const sessionPath = (s: string, ...rest: string[]) => join(dir, 'sessions', '_u1', '_a1', s, ...rest);

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentkit-offload-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('FileOffloader', () => {
  it('stores a base64 data block once under data/<sha256><ext> and returns a URL block', async () => {
    const off = offloader({ dataUrlBase: 'workspace:///' });
    const a = await off.offloadDataBlock(image('a'));
    const b = await off.offloadDataBlock(image('b'));
    expect(a).toEqual({
      type: 'data',
      id: 'id-a',
      name: 'a',
      source: { type: 'url', url: `workspace:///data/${sha}.png`, mediaType: 'image/png' },
    });
    expect(b.source).toEqual(a.source);
    expect(await readdir(join(dir, 'data'))).toEqual([`${sha}.png`]);
    expect((await readFile(join(dir, 'data', `${sha}.png`))).equals(Buffer.from(PNG, 'base64'))).toBe(true);
  });

  it('uses file URLs by default and leaves URL blocks alone', async () => {
    const off = offloader();
    const stored = await off.offloadDataBlock(image('a'));
    expect(stored.source).toMatchObject({
      type: 'url',
      url: pathToFileURL(join(dir, 'data', `${sha}.png`)).href,
    });
    const url: DataBlock = {
      type: 'data',
      id: 'u',
      source: { type: 'url', url: 'https://x/y.png', mediaType: 'image/png' },
    };
    expect(await off.offloadDataBlock(url)).toBe(url);
  });

  it('appends compressed messages as JSON lines per session, with inline data offloaded', async () => {
    const off = offloader();
    const first = assistantMsg([textBlock('one'), image('pic')], { id: 'm1' });
    const path = await off.offloadContext('s1', [first]);
    expect(path).toBe(sessionPath('_s1', 'context.jsonl'));
    await off.offloadContext('s1', [assistantMsg('two', { id: 'm2' }), assistantMsg('three', { id: 'm3' })]);
    const lines = (await readFile(path, 'utf8'))
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines.map((m) => m.id)).toEqual(['m1', 'm2', 'm3']);
    expect(lines[0].content[1].source.type).toBe('url');
    // The message itself is not changed.
    expect(first.content[1]).toEqual(image('pic'));
  });

  it('serialises concurrent appends to one session file', async () => {
    const off = offloader();
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        off.offloadContext('s', [assistantMsg('x'.repeat(5000), { id: `m${i}` })]),
      ),
    );
    const lines = (await readFile(sessionPath('_s', 'context.jsonl'), 'utf8')).trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l).id).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `m${i}`).sort(),
    );
  });

  it('serialises appends of several offloaders on one directory (large batches never interleave)', async () => {
    const offloaders = Array.from({ length: 4 }, () => offloader());
    const big = (i: number) => [assistantMsg(String(i % 10).repeat(700_000), { id: `m${i}` })];
    await Promise.all(Array.from({ length: 8 }, (_, i) => offloaders[i % 4]!.offloadContext('s', big(i))));
    const lines = (await readFile(sessionPath('_s', 'context.jsonl'), 'utf8')).trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l).id).sort()).toEqual(
      Array.from({ length: 8 }, (_, i) => `m${i}`).sort(),
    );
  });

  it('writes tool results to tool_result-<id>.txt, then (1), (2)…', async () => {
    const off = offloader({ dataUrlBase: 'workspace:///' });
    const result: ToolResultBlock = {
      type: 'tool_result',
      id: 'call_1',
      name: 'Read',
      output: [textBlock('head '), image("it's"), textBlock('tail')],
      state: 'success',
      metadata: {},
    };
    const p0 = await off.offloadToolResult('s', result);
    const p1 = await off.offloadToolResult('s', result);
    const p2 = await off.offloadToolResult('s', result);
    expect([p0, p1, p2].map((p) => relative(dir, p).split(sep).join('/'))).toEqual([
      'sessions/_u1/_a1/_s/tool_result-_call_1.txt',
      'sessions/_u1/_a1/_s/tool_result-_call_1(1).txt',
      'sessions/_u1/_a1/_s/tool_result-_call_1(2).txt',
    ]);
    expect(await readFile(p0, 'utf8')).toBe(
      `head <data url='workspace:///data/${sha}.png' name='it&apos;s' media_type='image/png'/>tail`,
    );
  });

  it('keeps hostile user, agent, session and call ids inside the directory', async () => {
    const hostile = ['../../etc', '..', '.', '/abs/path', 'a\\..\\b', 'x\u0000y', '', 'CON', 'x.'];
    for (const id of hostile) {
      const off = new FileOffloader({ directory: dir, userId: id || '.', agentId: `../${id}` });
      const p1 = await off.offloadContext(id, [assistantMsg('x')]);
      const p2 = await off.offloadToolResult(id, {
        type: 'tool_result',
        id,
        name: 't',
        output: [textBlock('x')],
        state: 'success',
        metadata: {},
      });
      for (const p of [p1, p2]) {
        const rel = relative(dir, p);
        expect(rel.startsWith('..')).toBe(false);
        expect(rel.split(sep).slice(0, 1)).toEqual(['sessions']);
        expect(rel.split(sep)).toHaveLength(5);
      }
    }
  });
});

describe('FileOffloader and symlinks', () => {
  let outside: string;
  beforeEach(async () => {
    outside = await mkdtemp(join(tmpdir(), 'agentkit-outside-'));
  });
  afterEach(async () => {
    await rm(outside, { recursive: true, force: true });
  });
  const result: ToolResultBlock = {
    type: 'tool_result',
    id: 'c1',
    name: 't',
    output: [textBlock('rest'), image('p')],
    state: 'success',
    metadata: {},
  };

  it('never follows a symlinked session folder, sessions folder or data folder out of the directory', async () => {
    const off = offloader();
    await mkdir(sessionPath(''), { recursive: true });
    await symlink(outside, sessionPath('_s1'));
    await expect(off.offloadContext('s1', [assistantMsg('x')])).rejects.toThrow(/symbolic link/);
    await expect(off.offloadToolResult('s1', result)).rejects.toThrow(/symbolic link/);

    const other = await mkdtemp(join(tmpdir(), 'agentkit-offload-'));
    try {
      await symlink(outside, join(other, 'sessions'));
      await symlink(outside, join(other, 'data'));
      const off2 = new FileOffloader({ directory: other, userId: 'u1', agentId: 'a1' });
      await expect(off2.offloadContext('s2', [assistantMsg('x')])).rejects.toThrow(/symbolic link/);
      await expect(off2.offloadDataBlock(image('q'))).rejects.toThrow(/symbolic link/);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
    expect(await readdir(outside)).toEqual([]);
  });

  it('never appends through a symlinked context.jsonl', async () => {
    const off = offloader();
    await mkdir(sessionPath('_s1'), { recursive: true });
    const target = join(outside, 'victim.txt');
    await writeFile(target, 'original');
    await symlink(target, sessionPath('_s1', 'context.jsonl'));
    await expect(off.offloadContext('s1', [assistantMsg('x')])).rejects.toThrow();
    expect(await readFile(target, 'utf8')).toBe('original');
  });

  it('accepts a directory that is itself reached through a symlink', async () => {
    const link = join(outside, 'link');
    await symlink(dir, link);
    const off = new FileOffloader({ directory: link, userId: 'u1', agentId: 'a1' });
    const path = await off.offloadContext('s1', [assistantMsg('x')]);
    expect(await readFile(path, 'utf8')).toContain('"x"');
    expect(await readdir(sessionPath(''))).toEqual(['_s1']);
  });
});

describe('FileOffloader keys folders by user, agent and session', () => {
  const card = assistantMsg('My card number is 4111 1111 1111 1111.', { id: 'a-secret' });

  it("never puts one user's compressed context in another user's archive (same session id)", async () => {
    const alice = new FileOffloader({ directory: dir, userId: 'alice', agentId: 'support' });
    const bob = new FileOffloader({ directory: dir, userId: 'bob', agentId: 'support' });
    const alicePath = await alice.offloadContext('chat-1', [card]);
    const bobPath = await bob.offloadContext('chat-1', [assistantMsg('Hello', { id: 'b-1' })]);
    expect(bobPath).not.toBe(alicePath);
    expect(await readFile(bobPath, 'utf8')).not.toContain('4111');
    expect(await readFile(alicePath, 'utf8')).not.toContain('b-1');
    const bobTool = await bob.offloadToolResult('chat-1', {
      type: 'tool_result',
      id: 'call_1',
      name: 'Read',
      output: [textBlock('bob')],
      state: 'success',
      metadata: {},
    });
    expect(relative(dir, bobTool).split(sep).slice(0, 4)).toEqual([
      'sessions',
      '_bob',
      '_support',
      '_chat-1',
    ]);
  });

  it('never shares a folder between two agents of one user', async () => {
    const a = await new FileOffloader({ directory: dir, userId: 'u', agentId: 'ops' }).offloadContext('s', [
      card,
    ]);
    const b = await new FileOffloader({ directory: dir, userId: 'u', agentId: 'sales' }).offloadContext(
      's',
      [],
    );
    expect(a).not.toBe(b);
    expect(await readFile(b, 'utf8')).toBe('');
  });

  it('gives ids that differ by case or a trailing dot folders that stay apart on macOS and Windows', async () => {
    // Those filesystems fold case and drop trailing dots: compare the names as they would.
    const fold = (path: string) => path.toLowerCase().replace(/\.+(?=\/|$)/g, '');
    const paths = [];
    for (const [userId, sessionId] of [
      ['Alice', 'abc'],
      ['alice', 'abc'],
      ['alice', 'abc.'],
      ['alice', 'ABC'],
    ] as const)
      paths.push(
        relative(
          dir,
          await new FileOffloader({ directory: dir, userId, agentId: 'a' }).offloadContext(sessionId, []),
        ),
      );
    expect(new Set(paths.map((p) => fold(p.split(sep).join('/')))).size).toBe(4);
  });

  it('never names a folder after a Windows device', async () => {
    const path = await new FileOffloader({ directory: dir, userId: 'CON', agentId: 'nul' }).offloadContext(
      'com1',
      [],
    );
    for (const part of relative(dir, path).split(sep))
      expect(part).not.toMatch(/^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$/i);
  });

  it('needs a user and an agent', () => {
    for (const options of [{ agentId: 'a' }, { userId: 'u' }, { userId: '', agentId: 'a' }]) {
      const error = (() => {
        try {
          new FileOffloader({ directory: dir, ...options } as FileOffloaderOptions);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).message).toMatch(/keyed by user, agent and session/);
    }
  });
});

describe('extensionFor', () => {
  it('maps common media types and falls back to .bin', () => {
    expect(extensionFor('image/png')).toBe('.png');
    expect(extensionFor('image/jpeg')).toBe('.jpg');
    expect(extensionFor('text/plain; charset=utf-8')).toBe('.txt');
    expect(extensionFor('application/x-unknown')).toBe('.bin');
  });
});
