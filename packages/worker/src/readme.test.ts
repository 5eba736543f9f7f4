import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deleteByPrefix, keysByPrefix, REDIS_URL, uniquePrefix } from '@agentkit/test-redis';
import { readmeBlocks, runExample, typeCheckBlocks } from '@agentkit/test-fixtures/readme';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

describe('README', () => {
  it('the example runs a reply through the queue on a worker, and the process exits', async () => {
    const [example] = await readmeBlocks(packageDir);
    const prefix = uniquePrefix('readme');
    // The same code in a key space of its own.
    const script = example!
      .replace('new RedisStorage({ url })', `new RedisStorage({ url, keyPrefix: '${prefix}:s' })`)
      .replace('new RedisEventLog({ url })', `new RedisEventLog({ url, keyPrefix: '${prefix}:e' })`)
      .replaceAll(
        'connection: { url }',
        `connection: { url }, prefix: '${prefix}:bull', keyPrefix: '${prefix}:q'`,
      );
    expect(script.match(new RegExp(prefix, 'g'))).toHaveLength(6);
    const admin = new Redis(REDIS_URL);
    try {
      const stdout = await runExample(packageDir, script, { env: { ...process.env, REDIS_URL } });
      expect(stdout).toBe('"type":"RUN_START" "type":"REPLY_START" "type":"REPLY_END" "type":"RUN_END"\n');
      expect((await keysByPrefix(admin, `${prefix}:bull`)).length).toBeGreaterThan(0);
    } finally {
      await deleteByPrefix(admin, prefix);
      admin.disconnect();
    }
  }, 90_000);

  it('every ts block compiles against the built packages (strict, module nodenext)', async () => {
    const blocks = await readmeBlocks(packageDir);
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    expect(await typeCheckBlocks(packageDir, blocks)).toBe('');
  }, 150_000);
});
