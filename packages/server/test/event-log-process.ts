import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');

/** A child process running a RedisEventLog (see event-log-child.ts). */
export interface EventLogProcess {
  /** Sends a command; resolves with the child's answer. */
  request(command: object): Promise<Record<string, unknown>>;
  /** The interrupts its listener received so far. */
  interrupts: unknown[];
  /** Closes its log and waits for it to exit (kills it after 5 s). */
  stop(): Promise<void>;
}

/** Starts the child and waits until its log is ready. */
export async function startEventLogProcess(url: string, keyPrefix: string): Promise<EventLogProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    [
      '--conditions=@agentkit/source',
      '--import',
      'tsx',
      join(packageDir, 'test/event-log-child.ts'),
      url,
      keyPrefix,
    ],
    { cwd: packageDir, stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const pending = new Map<number, (answer: Record<string, unknown>) => void>();
  const interrupts: unknown[] = [];
  let seq = 0;
  const ready = new Promise<void>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`event-log child exited with ${code}`)));
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const message = JSON.parse(line) as Record<string, unknown>;
      if (message.ready) resolve();
      else if (message.interrupt) interrupts.push(message.interrupt);
      else pending.get(message.seq as number)?.(message);
    });
  });
  await ready;
  return {
    interrupts,
    request: (command) =>
      new Promise((resolve) => {
        pending.set(++seq, resolve);
        child.stdin!.write(`${JSON.stringify({ ...command, seq })}\n`);
      }),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.stdin!.write(`${JSON.stringify({ op: 'close', seq: ++seq })}\n`);
      const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    },
  };
}
