import { execFile } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { REDIS_URL, deleteByPrefix, keysByPrefix, uniquePrefix } from '../test/redis-server';

const exec = promisify(execFile);
const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

describe('README', () => {
  it('the example runs twice: first it creates the session, then it would update it', async () => {
    const readme = await readFile(join(packageDir, 'README.md'), 'utf8');
    const code = /```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(code).toBeDefined();
    // Same code, but keep the session between the runs (in a key space of its own).
    const prefix = uniquePrefix('readme');
    const script = (code as string)
      .replace('new RedisStorage({ url:', `new RedisStorage({ keyPrefix: '${prefix}', url:`)
      .replace(
        /^await storage\.deleteSession.*$/m,
        'if (process.argv[2] === "last") await storage.deleteSession(USER_ID, AGENT_ID, SESSION_ID);',
      );
    const file = join(packageDir, `.readme-example-${process.pid}.ts`);
    const admin = new Redis(REDIS_URL);
    await writeFile(file, script);
    try {
      const run = async (arg: string) =>
        (
          await exec(process.execPath, ['--conditions=@agentkit/source', '--import', 'tsx', file, arg], {
            cwd: packageDir,
            env: { ...process.env, REDIS_URL },
          })
        ).stdout;
      expect(await run('first')).toMatch(/^completed Picking up where we left off\.\nsaved version 1\n$/);
      expect(await run('last')).toMatch(/saved version 2\n$/);
      expect(await run('first')).toMatch(/saved version 1\n$/);
      await run('last');
      expect(await keysByPrefix(admin, prefix), 'the example deletes its session and index').toEqual([]);
    } finally {
      await deleteByPrefix(admin, prefix);
      admin.disconnect();
      await rm(file, { force: true });
    }
  }, 30_000);
});
