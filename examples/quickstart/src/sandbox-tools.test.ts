import { execFileSync, fork } from 'node:child_process';
import { link, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tool, ToolContext } from '@agentkit/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SandboxPathError } from './sandbox-path-error';
import { sandboxTools } from './sandbox-tools';
import { seedSandbox } from './seed-sandbox';

let root: string;
let sandbox: string;
let tools: Record<string, Tool>;
const run = (name: string, input: unknown) => tools[name]!.execute!(input, {} as ToolContext);

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'agentkit-sandbox-'));
  sandbox = join(root, 'sandbox');
  await seedSandbox(sandbox);
  await writeFile(join(root, 'secret.txt'), 'top secret');
  tools = Object.fromEntries(sandboxTools(sandbox).map((t) => [t.name, t]));
});
afterEach(() => rm(root, { recursive: true, force: true }));

describe('sandbox tools', () => {
  it('should list, read and write files inside the sandbox', async () => {
    await mkdir(join(sandbox, 'sub'));
    await writeFile(join(sandbox, 'sub', 'a.txt'), 'abc');
    expect(await run('list_files', {})).toMatch(
      /^notes\.md \(\d+ bytes\)\nsub\/a\.txt \(3 bytes\)\ntodo\.txt \(\d+ bytes\)$/,
    );
    expect(await run('read_file', { path: 'sub/a.txt' })).toBe('abc');
    expect(await run('write_file', { path: 'out/summary.md', content: 'hé' })).toEqual({
      output: 'Wrote 3 bytes to out/summary.md.',
      metadata: { path: 'out/summary.md', bytes: 3 },
    });
    expect(await readFile(join(sandbox, 'out', 'summary.md'), 'utf8')).toBe('hé');
  });

  it('should refuse paths that leave the sandbox, also through a symlink', async () => {
    await symlink(root, join(sandbox, 'escape'));
    for (const path of ['../secret.txt', join(root, 'secret.txt'), 'escape/secret.txt', '', 'a\0b']) {
      const error = await Promise.resolve(run('read_file', { path })).catch((e: unknown) => e);
      expect(error, path).toBeInstanceOf(SandboxPathError);
    }
    await expect(
      Promise.resolve(run('write_file', { path: 'escape/new.txt', content: 'x' })),
    ).rejects.toBeInstanceOf(SandboxPathError);
    await expect(Promise.resolve(run('list_files', { path: '..' }))).rejects.toThrow(/leaves the sandbox/);
  });

  it('should not write through a dangling symlink (the link passes a path check, the write would create its target)', async () => {
    const target = join(root, 'planted.txt'); // outside, and does not exist yet
    await symlink(target, join(sandbox, 'report.md'));
    await mkdir(join(sandbox, 'sub'));
    await symlink(join(root, 'planted-too.txt'), join(sandbox, 'sub', 'deep.md'));
    for (const path of ['report.md', 'sub/deep.md', 'sub/../report.md']) {
      const error = await Promise.resolve(run('write_file', { path, content: 'pwned' })).catch(
        (e: unknown) => e,
      );
      expect(error, path).toBeInstanceOf(SandboxPathError);
      expect((error as Error).message, path).toMatch(/symbolic link/);
    }
    expect(await readdir(root)).toEqual(['sandbox', 'secret.txt']);
  });

  it('should neither read nor overwrite a file outside through a link to it, symbolic or hard', async () => {
    await symlink(join(root, 'secret.txt'), join(sandbox, 'soft.txt'));
    await link(join(root, 'secret.txt'), join(sandbox, 'hard.txt'));
    for (const path of ['soft.txt', 'hard.txt']) {
      await expect(Promise.resolve(run('read_file', { path })), path).rejects.toBeInstanceOf(
        SandboxPathError,
      );
      await expect(Promise.resolve(run('write_file', { path, content: 'x' })), path).rejects.toBeInstanceOf(
        SandboxPathError,
      );
    }
    expect(await readFile(join(root, 'secret.txt'), 'utf8')).toBe('top secret');
  });

  it('should neither list nor enter a linked folder', async () => {
    await symlink(root, join(sandbox, 'escape'));
    expect(await run('list_files', {})).not.toMatch(/secret/);
    await expect(Promise.resolve(run('list_files', { path: 'escape' }))).rejects.toBeInstanceOf(
      SandboxPathError,
    );
  });

  it('should refuse what is not a regular file without blocking on it (a FIFO, a folder)', async () => {
    execFileSync('mkfifo', [join(sandbox, 'pipe')]);
    for (const tool of ['read_file', 'write_file'])
      await expect(Promise.resolve(run(tool, { path: 'pipe', content: 'x' })), tool).rejects.toThrow(
        /not a regular file/,
      );
    await mkdir(join(sandbox, 'folder'));
    await expect(Promise.resolve(run('read_file', { path: 'folder' }))).rejects.toThrow(/not a regular file/);
  });

  it('should never write outside while another process keeps swapping a folder for a link to outside', async () => {
    const outside = join(root, 'outside');
    await mkdir(outside);
    await mkdir(join(sandbox, 'sub'));
    // The swapper alternates sandbox/sub between a real folder and a symbolic link to `outside`.
    const swapper = fork(join(import.meta.dirname, '__fixtures__', 'swap-folder.mjs'), [sandbox, outside], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    try {
      await new Promise<void>((resolve, reject) => {
        swapper.once('message', () => resolve());
        swapper.once('error', reject);
      });
      // Enough attempts for the swaps to hit every step of a write; bounded in time for a loaded machine.
      let attempts = 0;
      let refused = 0;
      const until = Date.now() + 15_000;
      while ((attempts < 300 || refused < 20) && Date.now() < until) {
        const content = `attempt ${attempts++}`;
        await Promise.resolve(run('write_file', { path: 'sub/out.txt', content })).catch(() => refused++);
      }
      expect(refused).toBeGreaterThan(0); // the swaps were seen
    } finally {
      if (swapper.exitCode === null && swapper.signalCode === null) {
        const exited = new Promise((resolve) => swapper.once('exit', resolve));
        swapper.kill();
        await exited;
      }
    }
    for (const name of await readdir(outside))
      expect((await stat(join(outside, name))).size, `outside/${name}`).toBe(0);
  });

  it('should ask for confirmation before writing, and only then', () => {
    expect(tools.write_file!.needsConfirmation).toBe(true);
    expect(tools.read_file!.needsConfirmation).toBeFalsy();
    expect(tools.list_files!.needsConfirmation).toBeFalsy();
  });
});
