import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readmeBlocks, runExample } from '@agentkit/test-fixtures/readme';
import { REDIS_URL, deleteByPrefix, keysByPrefix, uniquePrefix } from '@agentkit/test-redis';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

describe('the README section on the Redis event log', () => {
  it('the example appends, wakes the follower, reads and cleans up after itself', async () => {
    const [code] = await readmeBlocks(packageDir, '## Event log in Redis');
    const prefix = uniquePrefix('readme');
    const script = code!
      .replace('@agentkit/server/redis', './src/redis/index.ts')
      .replace('new RedisEventLog({ url:', `new RedisEventLog({ keyPrefix: '${prefix}', url:`);
    expect(script).toContain(prefix);
    const admin = new Redis(REDIS_URL);
    try {
      const stdout = await runExample(packageDir, script, { env: { ...process.env, REDIS_URL } });
      expect(stdout).toBe('true TEXT_BLOCK_START\ntrue TEXT_BLOCK_DELTA\n');
      expect(await keysByPrefix(admin, prefix), 'the example deletes its log').toEqual([]);
    } finally {
      await deleteByPrefix(admin, prefix);
      admin.disconnect();
    }
  }, 30_000);
});
