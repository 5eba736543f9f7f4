// Adapted from packages/server/test/redis-server.ts (packages do not import each other's tests).
import type { Redis } from 'ioredis';

/** The Redis every test may use (127.0.0.1:6379 unless REDIS_URL says otherwise). */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A key prefix unique to this test run and call (BullMQ's and ours live under it). */
export function uniquePrefix(label = 'test'): string {
  return `agentkit-test:worker-${label}:${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

/** The keys under the prefix (SCAN, never KEYS: the Redis is shared). */
export async function keysByPrefix(client: Redis, prefix: string): Promise<string[]> {
  const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    out.push(...keys);
    cursor = next;
  } while (cursor !== '0');
  return out;
}

/** Deletes every key under the prefix. */
export async function deleteByPrefix(client: Redis, prefix: string): Promise<void> {
  const keys = await keysByPrefix(client, prefix);
  for (let i = 0; i < keys.length; i += 500) await client.unlink(...keys.slice(i, i + 500));
}
