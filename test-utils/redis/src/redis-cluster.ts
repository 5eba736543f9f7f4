import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { Cluster, Redis } from 'ioredis';
import { freePort, type RedisProcess, startRedisServer } from './redis-server';

const exec = promisify(execFile);

/** A local Redis Cluster of several masters. */
export interface RedisCluster {
  nodes: Array<{ host: string; port: number }>;
  /** A new `Cluster` client of the nodes (offline queue on, no retries per request), once it is ready. */
  connect(): Promise<Cluster>;
  /** How many keys each master holds (`DBSIZE`), to see that keys spread over the cluster. */
  keysPerMaster(): Promise<number[]>;
  /** Kills every server and deletes their directories. */
  dispose(): Promise<void>;
}

/** Starts `masters` cluster-enabled servers on free ports, creates the cluster and waits for `cluster_state:ok`. */
export async function startRedisCluster(masters = 3): Promise<RedisCluster> {
  const servers: RedisProcess[] = [];
  const dispose = async () => {
    await Promise.all(servers.map((s) => s.dispose()));
  };
  try {
    for (let i = 0; i < masters; i++)
      servers.push(
        await startRedisServer([
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          'nodes.conf',
          '--cluster-node-timeout',
          '5000',
          // The bus port defaults to port + 10000, which does not exist for ports above 55535.
          '--cluster-port',
          String(await freePort()),
        ]),
      );
    await exec('redis-cli', [
      '--cluster',
      'create',
      ...servers.map((s) => `127.0.0.1:${s.port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    const deadline = Date.now() + 20_000;
    for (const s of servers) {
      const probe = new Redis({ port: s.port, host: '127.0.0.1', lazyConnect: true });
      try {
        await probe.connect();
        for (;;) {
          const info = await probe.cluster('INFO');
          if (String(info).includes('cluster_state:ok')) break;
          if (Date.now() > deadline) throw new Error(`cluster node ${s.port} not ok: ${info}`);
          await new Promise((r) => setTimeout(r, 100));
        }
      } finally {
        probe.disconnect();
      }
    }
  } catch (error) {
    await dispose();
    throw error;
  }
  const nodes = servers.map((s) => ({ host: '127.0.0.1', port: s.port }));
  return {
    nodes,
    async connect() {
      const client = new Cluster(nodes, {
        enableOfflineQueue: true,
        redisOptions: { maxRetriesPerRequest: 0 },
      });
      await new Promise<void>((resolve, reject) => {
        const ready = () => {
          client.off('error', failed);
          resolve();
        };
        const failed = (error: Error) => {
          client.off('ready', ready);
          client.disconnect();
          reject(error);
        };
        client.once('ready', ready);
        client.once('error', failed);
      });
      return client;
    },
    async keysPerMaster() {
      const masters = nodes.map((node) => new Redis(node));
      try {
        return await Promise.all(masters.map((master) => master.dbsize()));
      } finally {
        for (const master of masters) master.disconnect();
      }
    },
    dispose,
  };
}
