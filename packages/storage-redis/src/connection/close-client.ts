import type { Cluster, Redis } from 'ioredis';

/**
 * Closes an ioredis client: `QUIT` (which waits for the replies still due), or a disconnect when the
 * server does not answer within a second or the client is not connected (nothing is pending then).
 */
export async function closeClient(client: Redis | Cluster): Promise<void> {
  if (client.status === 'end') return;
  if (client.status !== 'ready') {
    client.disconnect();
    return;
  }
  const ended = new Promise((resolve) => client.once('end', resolve));
  client.quit().catch(() => {});
  await Promise.race([ended, new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
  if ((client.status as string) !== 'end') client.disconnect();
}
