import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);

/** A free TCP port on localhost (free now: another process may take it before you bind it). */
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
  /**
   * Stops the server (SIGSTOP): the kernel still accepts connections on its port, but nothing answers,
   * like a frozen or overloaded Redis.
   */
  freeze(): void;
  /** Lets a frozen server run again (SIGCONT). */
  thaw(): void;
  /** Kills it and deletes its directory. */
  dispose(): Promise<void>;
}

const ANOTHER_SERVER = 'is served by another redis-server';

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
      if (stdout.includes('process_id:')) throw new Error(`port ${port} ${ANOTHER_SERVER}`);
    } catch (error) {
      if ((error as Error).message.includes(ANOTHER_SERVER)) throw error;
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

/**
 * Starts `redis-server` on `port` or a free one (no persistence, its own directory), with extra
 * arguments, and waits until it answers on that port. Kill it with `dispose()`; it is killed when this
 * process exits in any case.
 */
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
    freeze() {
      handle.process.kill('SIGSTOP');
    },
    thaw() {
      handle.process.kill('SIGCONT');
    },
    async dispose() {
      // A stopped process dies of SIGKILL as well; SIGCONT first so its exit is reported at once.
      handle.process.kill('SIGCONT');
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
