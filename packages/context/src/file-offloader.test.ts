import { createHash } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { assistantMsg, type DataBlock, type ToolResultBlock, textBlock } from '@agentkit/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { extensionFor, FileOffloader } from './file-offloader';
import { safeFileName } from './safe-file-name';

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
const image = (name: string): DataBlock => ({
  type: 'data',
  id: `id-${name}`,
  name,
  source: { type: 'base64', data: PNG, mediaType: 'image/png' },
});
const sha = createHash('sha256').update(PNG).digest('hex');

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentkit-offload-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('FileOffloader', () => {
  it('stores a base64 data block once under data/<sha256><ext> and returns a URL block', async () => {
    const off = new FileOffloader({ directory: dir, dataUrlBase: 'workspace:///' });
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
    const off = new FileOffloader({ directory: dir });
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
    const off = new FileOffloader({ directory: dir });
    const first = assistantMsg([textBlock('one'), image('pic')], { id: 'm1' });
    const path = await off.offloadContext('s1', [first]);
    expect(path).toBe(join(dir, 'sessions', 's1', 'context.jsonl'));
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
    const off = new FileOffloader({ directory: dir });
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        off.offloadContext('s', [assistantMsg('x'.repeat(5000), { id: `m${i}` })]),
      ),
    );
    const lines = (await readFile(join(dir, 'sessions', 's', 'context.jsonl'), 'utf8')).trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l).id).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `m${i}`).sort(),
    );
  });

  it('serialises appends of several offloaders on one directory (large batches never interleave)', async () => {
    const offloaders = Array.from({ length: 4 }, () => new FileOffloader({ directory: dir }));
    const big = (i: number) => [assistantMsg(String(i % 10).repeat(700_000), { id: `m${i}` })];
    await Promise.all(Array.from({ length: 8 }, (_, i) => offloaders[i % 4]!.offloadContext('s', big(i))));
    const lines = (await readFile(join(dir, 'sessions', 's', 'context.jsonl'), 'utf8')).trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l).id).sort()).toEqual(
      Array.from({ length: 8 }, (_, i) => `m${i}`).sort(),
    );
  });

  it('writes tool results to tool_result-<id>.txt, then (1), (2)…', async () => {
    const off = new FileOffloader({ directory: dir, dataUrlBase: 'workspace:///' });
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
      'sessions/s/tool_result-call_1.txt',
      'sessions/s/tool_result-call_1(1).txt',
      'sessions/s/tool_result-call_1(2).txt',
    ]);
    expect(await readFile(p0, 'utf8')).toBe(
      `head <data url='workspace:///data/${sha}.png' name='it&apos;s' media_type='image/png'/>tail`,
    );
  });

  it('keeps hostile session and call ids inside the directory', async () => {
    const off = new FileOffloader({ directory: dir });
    const hostile = ['../../etc', '..', '.', '/abs/path', 'a\\..\\b', 'x\u0000y', ''];
    for (const id of hostile) {
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
        expect(rel.split(sep)).toHaveLength(3);
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
    const off = new FileOffloader({ directory: dir });
    await mkdir(join(dir, 'sessions'), { recursive: true });
    await symlink(outside, join(dir, 'sessions', 's1'));
    await expect(off.offloadContext('s1', [assistantMsg('x')])).rejects.toThrow(/symbolic link/);
    await expect(off.offloadToolResult('s1', result)).rejects.toThrow(/symbolic link/);

    const other = await mkdtemp(join(tmpdir(), 'agentkit-offload-'));
    try {
      await symlink(outside, join(other, 'sessions'));
      await symlink(outside, join(other, 'data'));
      const off2 = new FileOffloader({ directory: other });
      await expect(off2.offloadContext('s2', [assistantMsg('x')])).rejects.toThrow(/symbolic link/);
      await expect(off2.offloadDataBlock(image('q'))).rejects.toThrow(/symbolic link/);
    } finally {
      await rm(other, { recursive: true, force: true });
    }
    expect(await readdir(outside)).toEqual([]);
  });

  it('never appends through a symlinked context.jsonl', async () => {
    const off = new FileOffloader({ directory: dir });
    await mkdir(join(dir, 'sessions', 's1'), { recursive: true });
    const target = join(outside, 'victim.txt');
    await writeFile(target, 'original');
    await symlink(target, join(dir, 'sessions', 's1', 'context.jsonl'));
    await expect(off.offloadContext('s1', [assistantMsg('x')])).rejects.toThrow();
    expect(await readFile(target, 'utf8')).toBe('original');
  });

  it('accepts a directory that is itself reached through a symlink', async () => {
    const link = join(outside, 'link');
    await symlink(dir, link);
    const off = new FileOffloader({ directory: link });
    const path = await off.offloadContext('s1', [assistantMsg('x')]);
    expect(await readFile(path, 'utf8')).toContain('"x"');
    expect(await readdir(join(dir, 'sessions'))).toEqual(['s1']);
  });
});

describe('safeFileName', () => {
  it('keeps safe ids and makes distinct unsafe ids distinct', () => {
    expect(safeFileName('session_1.a-b')).toBe('session_1.a-b');
    expect(safeFileName('a/b')).not.toBe(safeFileName('a_b'));
    expect(safeFileName('a/b')).toMatch(/^a_b-[0-9a-f]{16}$/);
    for (const bad of ['..', '.', '', '../x', 'x'.repeat(500)]) {
      const name = safeFileName(bad);
      expect(name).toMatch(/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/);
      expect(name.length).toBeLessThanOrEqual(100);
    }
  });

  it('never maps a safe-looking id onto the name of a sanitised one', () => {
    // 'a/b' becomes 'a_b-<hash>'; the literal id 'a_b-<hash>' must not share that folder.
    const sanitised = safeFileName('a/b');
    expect(safeFileName(sanitised)).not.toBe(sanitised);
    const long = 'x'.repeat(200);
    expect(safeFileName(safeFileName(long))).not.toBe(safeFileName(long));
    expect(safeFileName('id-0123456789abcdef')).not.toBe(safeFileName(''));
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
