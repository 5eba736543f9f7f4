import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
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

  it('should ask for confirmation before writing, and only then', () => {
    expect(tools.write_file!.needsConfirmation).toBe(true);
    expect(tools.read_file!.needsConfirmation).toBeFalsy();
    expect(tools.list_files!.needsConfirmation).toBeFalsy();
  });
});
