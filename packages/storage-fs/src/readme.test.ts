import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const exec = promisify(execFile);
const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

describe('README', () => {
  it('the example creates the session on the first run and updates it on the second', async () => {
    const readme = await readFile(join(packageDir, 'README.md'), 'utf8');
    const code = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(code).toBeDefined();
    const dir = await mkdtemp(join(tmpdir(), 'agentkit-readme-'));
    const file = join(packageDir, `.readme-example-${process.pid}.ts`);
    await writeFile(file, code as string);
    try {
      const run = async () =>
        (
          await exec(process.execPath, ['--conditions=@agentkit/source', '--import', 'tsx', file], {
            cwd: packageDir,
            env: { ...process.env, SESSIONS_DIR: dir },
          })
        ).stdout;
      const sessionDir = join(dir, '_user_123', '_agent_456', '_session_789');
      // The first run creates the session (version 1), checkpoints the input (2) and saves the reply (3).
      expect(await run()).toBe(`completed Picking up where we left off.\nsaved version 3 to ${sessionDir}\n`);
      expect(await run()).toBe(`completed Picking up where we left off.\nsaved version 5 to ${sessionDir}\n`);
      // Each run took the lease (a version of its own: the grant's fence) and released it.
      const versions = await readdir(sessionDir);
      expect(versions).toHaveLength(1);
      const saved = JSON.parse(await readFile(join(sessionDir, versions[0] as string), 'utf8'));
      expect(saved.record.version).toBe(5);
      expect(saved.state.context).toHaveLength(4);
      const lease = await readdir(`${sessionDir}.lease`);
      expect(
        JSON.parse(await readFile(join(`${sessionDir}.lease`, lease[0] as string), 'utf8')),
      ).toMatchObject({
        released: true,
      });
    } finally {
      await rm(file, { force: true });
      await rm(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
