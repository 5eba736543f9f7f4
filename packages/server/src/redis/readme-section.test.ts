import { execFile } from 'node:child_process';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { REDIS_URL, deleteByPrefix, keysByPrefix, uniquePrefix } from '@agentkit/test-redis';

const exec = promisify(execFile);
const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('the README section on the Redis event log', () => {
  it('the example appends, wakes the follower, reads and cleans up after itself', async () => {
    const readme = await readFile(join(packageDir, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Event log in Redis'));
    const code = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
    expect(code).toBeDefined();
    const prefix = uniquePrefix('readme');
    const script = (code as string)
      .replace('@agentkit/server/redis', '../src/redis/index.ts')
      .replace('new RedisEventLog({ url:', `new RedisEventLog({ keyPrefix: '${prefix}', url:`);
    expect(script).toContain(prefix);
    const file = join(packageDir, `test/.readme-example-${process.pid}.ts`);
    const admin = new Redis(REDIS_URL);
    await writeFile(file, script);
    try {
      const { stdout } = await exec(
        process.execPath,
        ['--conditions=@agentkit/source', '--import', 'tsx', file],
        { cwd: packageDir, env: { ...process.env, REDIS_URL } },
      );
      expect(stdout).toBe('true TEXT_BLOCK_START\ntrue TEXT_BLOCK_DELTA\n');
      expect(await keysByPrefix(admin, prefix), 'the example deletes its log').toEqual([]);
    } finally {
      await deleteByPrefix(admin, prefix);
      admin.disconnect();
      await rm(file, { force: true });
    }
  }, 30_000);
});
