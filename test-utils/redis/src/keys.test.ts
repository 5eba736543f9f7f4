import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { deleteByPrefix, keysByPrefix, REDIS_URL, uniquePrefix } from './keys';

const admin = new Redis(REDIS_URL);
afterAll(() => admin.quit());

describe('keys by prefix', () => {
  it('gives every call a prefix of its own', () => {
    const a = uniquePrefix('x');
    expect(a).toMatch(/^agentkit-test:x:\d+-/);
    expect(uniquePrefix('x')).not.toBe(a);
  });

  it('finds and deletes the keys under a prefix (glob characters taken literally), and no other', async () => {
    const prefix = `${uniquePrefix('keys')}:*[a]`;
    const lookalike = `${prefix.slice(0, -5)}:xa`;
    const mine = Array.from({ length: 1200 }, (_, i) => `${prefix}:${i}`);
    try {
      const pipeline = admin.pipeline();
      for (const key of [...mine, lookalike]) pipeline.set(key, '1');
      await pipeline.exec();
      expect((await keysByPrefix(admin, prefix)).sort()).toEqual([...mine].sort());
      await deleteByPrefix(admin, prefix);
      expect(await keysByPrefix(admin, prefix)).toEqual([]);
      expect(await admin.exists(lookalike)).toBe(1);
    } finally {
      await admin.unlink(lookalike, ...mine);
    }
  });
});
