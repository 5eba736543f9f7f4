// Adapted from packages/storage-redis/test/redis-server.ts (packages do not import each other's tests);
// this copy also checks that the server answering on a port is the one it started.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Cluster, Redis } from 'ioredis';

const exec = promisify(execFile);

/** The Redis every test may use (127.0.0.1:6379 unless REDIS_URL says otherwise). */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A key prefix unique to this test run and call. */
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

/** A free TCP port on localhost. */
export async function freePort(): Promise<number> {
  return await new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A `redis-server` child process on its own port and directory. */
export interface RedisProcess {
  port: number;
  dir: string;
  process: ChildProcess;
  /** Kills the server (SIGKILL) and waits until it is gone. */
  kill(): Promise<void>;
  /** Starts it again on the same port and directory. */
  restart(): Promise<void>;
  /** Kills it and deletes its directory. */
  dispose(): Promise<void>;
}

/**
 * Waits until the server on `port` answers and is `child` (its INFO `process_id`): another test of the
 * machine may have taken a port we were told was free, and then our server could not bind it.
 */
async function waitForServer(port: number, child: ChildProcess, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`redis-server on port ${port} exited (port taken?)`);
    try {
      const { stdout } = await exec('redis-cli', ['-p', String(port), 'info', 'server']);
      if (stdout.includes(`process_id:${child.pid}\r`)) return;
      if (stdout.includes('process_id:')) throw new Error(`port ${port} is served by another redis-server`);
    } catch (error) {
      if ((error as Error).message.includes('another redis-server')) throw error;
      // not up yet
    }
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not start`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Servers started by this process; killed when it exits, even if a test's own cleanup never ran. */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** Starts `redis-server` on a free port (no persistence), with extra arguments. */
export async function startRedisServer(
  extraArgs: string[] = [],
  port?: number,
  attempt = 1,
): Promise<RedisProcess> {
  const usePort = port ?? (await freePort());
  const dir = await mkdtemp(join(tmpdir(), `agentkit-redis-${usePort}-`));
  const launch = () => {
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(usePort),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
        ...extraArgs,
      ],
      { stdio: 'ignore' },
    );
    live.add(child);
    child.once('exit', () => live.delete(child));
    return child;
  };
  const handle: RedisProcess = {
    port: usePort,
    dir,
    process: launch(),
    async kill() {
      const child = handle.process;
      if (child.exitCode !== null || child.signalCode !== null) return;
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      });
    },
    async restart() {
      await handle.kill();
      handle.process = launch();
      await waitForServer(usePort, handle.process);
    },
    async dispose() {
      await handle.kill();
      await rm(dir, { recursive: true, force: true });
    },
  };
  try {
    await waitForServer(usePort, handle.process);
  } catch (error) {
    await handle.dispose();
    // A port we picked was taken meanwhile: pick another.
    if (port === undefined && attempt < 5) return startRedisServer(extraArgs, undefined, attempt + 1);
    throw error;
  }
  return handle;
}

/** A local Redis Cluster of several masters. */
export interface RedisCluster {
  nodes: Array<{ host: string; port: number }>;
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
  return { nodes: servers.map((s) => ({ host: '127.0.0.1', port: s.port })), dispose };
}
