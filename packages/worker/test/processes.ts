import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { WorldConfig } from './world';

const packageDir = fileURLToPath(new URL('..', import.meta.url));

/** A child process of a test, started with the package's sources (tsx). */
export interface TestProcess {
  child: ChildProcess;
  /** The first line it printed (`ready`, or the server's URL). */
  line: string;
  /** SIGKILL, and wait until it is gone. */
  kill(): Promise<void>;
  /** SIGTERM, and wait until it exited (SIGKILL after `timeoutMs`). */
  stop(timeoutMs?: number): Promise<number | null>;
}

const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

/** Starts `test/<script>` with the world's config and options; resolves once it printed its first line. */
export async function startProcess(
  script: string,
  config: WorldConfig,
  options: object = {},
): Promise<TestProcess> {
  const child = spawn(
    process.execPath,
    [
      '--conditions=@agentkit/source',
      '--import',
      'tsx',
      fileURLToPath(new URL(script, import.meta.url)),
      JSON.stringify(config),
      JSON.stringify(options),
    ],
    { cwd: packageDir, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  live.add(child);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      live.delete(child);
      resolve(code);
    }),
  );
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    exited.then((code) => reject(new Error(`${script} exited with ${code} before it was ready`)));
  });
  return {
    child,
    line: line.trim(),
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
    async stop(timeoutMs = 30_000) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}
