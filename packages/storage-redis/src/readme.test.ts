import { execFile } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { REDIS_URL, deleteByPrefix, keysByPrefix, uniquePrefix } from '@agentkit/test-redis';

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
      .replace(/^await (storage\.deleteSession.*)$/m, 'if (process.argv[2] === "last") await $1');
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
      // runSession creates the session (version 1) and saves the reply (version 2).
      expect(await run('first')).toMatch(/^completed Picking up where we left off\.\nsaved version 2\n$/);
      expect(await run('last')).toMatch(/saved version 3\n$/);
      expect(await run('first')).toMatch(/saved version 2\n$/);
      await run('last');
      // The session and its index are gone; the lease hash stays (tokens only grow) until it expires.
      const left = await keysByPrefix(admin, prefix);
      expect(left).toEqual([`${prefix}:{user_123:agent_456}:l:session_789`]);
      expect(await admin.hget(left[0] as string, 'e'), 'the lease was released').toBe('0');
      expect(await admin.pttl(left[0] as string)).toBeGreaterThan(3_500_000);
    } finally {
      await deleteByPrefix(admin, prefix);
      admin.disconnect();
      await rm(file, { force: true });
    }
  }, 30_000);
});
