// Starting and watching `fs-worker.ts` processes from the tests.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** A running worker: its process, the lines it printed so far, and its exit. */
export interface Worker {
  child: ChildProcess;
  lines: string[];
  exited: Promise<number | null>;
  /** Resolves with the first line (printed so far or later) that `match` accepts. */
  line(match: (line: string) => boolean, timeoutMs?: number): Promise<string>;
}

/** Starts `test/fs-worker.ts` with `args`. */
export function startWorker(args: string[], stdin: 'ignore' | 'pipe' = 'ignore'): Worker {
  const child = spawn(
    process.execPath,
    ['--conditions=@agentkit/source', '--import', 'tsx', 'test/fs-worker.ts', ...args],
    { cwd: packageDir, stdio: [stdin, 'pipe', 'pipe'] },
  );
  const lines: string[] = [];
  const waiters: Array<() => void> = [];
  let err = '';
  let rest = '';
  child.stdout?.on('data', (data) => {
    const parts = (rest + data).split('\n');
    rest = parts.pop() ?? '';
    lines.push(...parts);
    for (const wake of waiters.splice(0)) wake();
  });
  child.stderr?.on('data', (data) => (err += data));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      for (const wake of waiters.splice(0)) wake();
      resolve(code);
    }),
  );
  let done = false;
  exited.then(() => (done = true));
  const line = async (match: (line: string) => boolean, timeoutMs = 30_000): Promise<string> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = lines.find(match);
      if (found !== undefined) return found;
      if (done) throw new Error(`worker ${args.join(' ')} exited without the line (stderr: ${err})`);
      if (Date.now() > deadline)
        throw new Error(`worker ${args.join(' ')} printed no such line (last: ${lines.slice(-5)})`);
      await new Promise<void>((wake) => {
        waiters.push(wake);
        setTimeout(wake, 200);
      });
    }
  };
  return { child, lines, exited, line };
}

/** The state letter of a process in /proc (`T` when stopped), or `null` when it is gone. */
export function processState(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? null;
  } catch {
    return null;
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `check` holds, polling. */
export async function waitFor(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}
