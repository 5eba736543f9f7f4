import { Cluster, type Redis } from 'ioredis';

/** The Redis every test may use (127.0.0.1:6379 unless REDIS_URL says otherwise). It is shared: use a prefix of your own. */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A key prefix unique to this test run and call: `agentkit-test:<label>:<pid>-<time>-<random>`. */
export function uniquePrefix(label = 'test'): string {
  return `agentkit-test:${label}:${process.pid}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
}

/** The keys under the prefix (SCAN, never KEYS); for a `Cluster`, those of every master. */
export async function keysByPrefix(client: Redis | Cluster, prefix: string): Promise<string[]> {
  if (client instanceof Cluster)
    return (await Promise.all(client.nodes('master').map((node) => keysByPrefix(node, prefix)))).flat();
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

/**
 * Deletes every key under the prefix, one UNLINK per key so that it also works on the masters of a
 * cluster (whose keys lie in many slots); for a `Cluster`, on every master.
 */
export async function deleteByPrefix(client: Redis | Cluster, prefix: string): Promise<void> {
  if (client instanceof Cluster) {
    await Promise.all(client.nodes('master').map((node) => deleteByPrefix(node, prefix)));
    return;
  }
  const pipeline = client.pipeline();
  for (const key of await keysByPrefix(client, prefix)) pipeline.unlink(key);
  await pipeline.exec();
}
