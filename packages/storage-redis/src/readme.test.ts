import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readmeBlocks, runExample } from '@agentkit/test-fixtures/readme';
import { REDIS_URL, deleteByPrefix, keysByPrefix, uniquePrefix } from '@agentkit/test-redis';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

describe('README', () => {
  it('the example runs twice: first it creates the session, then it would update it', async () => {
    const [code] = await readmeBlocks(packageDir);
    // Same code, but keep the session between the runs (in a key space of its own).
    const prefix = uniquePrefix('readme');
    const script = code!
      .replace('new RedisStorage({ url:', `new RedisStorage({ keyPrefix: '${prefix}', url:`)
      .replace(/^await (storage\.deleteSession.*)$/m, 'if (process.argv[2] === "last") await $1');
    const admin = new Redis(REDIS_URL);
    try {
      const run = (arg: string) =>
        runExample(packageDir, script, { args: [arg], env: { ...process.env, REDIS_URL } });
      // runSession creates the session (version 1), checkpoints the input (2) and saves the reply (3).
      expect(await run('first')).toMatch(/^completed Picking up where we left off\.\nsaved version 3\n$/);
      expect(await run('last')).toMatch(/saved version 5\n$/);
      expect(await run('first')).toMatch(/saved version 3\n$/);
      await run('last');
      // The session and its index are gone; the lease hash stays (tokens only grow) until it expires.
      const left = await keysByPrefix(admin, prefix);
      expect(left).toEqual([`${prefix}:{user_123:agent_456}:l:session_789`]);
      expect(await admin.hget(left[0] as string, 'e'), 'the lease was released').toBe('0');
      expect(await admin.pttl(left[0] as string)).toBeGreaterThan(3_500_000);
    } finally {
      await deleteByPrefix(admin, prefix);
      admin.disconnect();
    }
  }, 30_000);
});
