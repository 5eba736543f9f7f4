import { type ChildProcess, spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** A line of JSON a child printed. */
export type ChildEvent = Record<string, unknown> & { event?: string; pid: number };

/**
 * `test/agent-process.ts` running in a Node process of its own, driven line by line: it prints one JSON
 * event per line on stdout and reads commands from stdin.
 */
export class AgentChild {
  readonly process: ChildProcess;
  readonly exited: Promise<number | null>;
  private readonly events: ChildEvent[] = [];
  private wake: (() => void) | undefined;
  private stderr = '';

  constructor(args: string[]) {
    this.process = spawn(
      process.execPath,
      ['--conditions=@agentkit/source', '--import', 'tsx', 'test/agent-process.ts', ...args],
      { cwd: packageDir, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    let buffered = '';
    this.process.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      buffered += chunk;
      for (let at = buffered.indexOf('\n'); at >= 0; at = buffered.indexOf('\n')) {
        this.events.push(JSON.parse(buffered.slice(0, at)) as ChildEvent);
        buffered = buffered.slice(at + 1);
      }
      this.wake?.();
    });
    this.process.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    this.exited = new Promise((resolve) =>
      this.process.once('exit', (code) => {
        this.wake?.();
        resolve(code);
      }),
    );
  }

  /** The next event the child prints (fails when it exits first or nothing comes within `timeoutMs`). */
  async next(timeoutMs = 30_000): Promise<ChildEvent> {
    const deadline = Date.now() + timeoutMs;
    while (this.events.length === 0) {
      if (this.process.exitCode !== null || this.process.signalCode !== null)
        throw new Error(`child ${this.process.pid} exited without an event:\n${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`no event from child ${this.process.pid}:\n${this.stderr}`);
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, 100);
      });
    }
    return this.events.shift() as ChildEvent;
  }

  /** Writes a command line to its stdin. */
  send(line: string): void {
    this.process.stdin?.write(`${line}\n`);
  }

  /** Kills it if it still runs (a stopped child is continued first so it dies at once). */
  async kill(): Promise<void> {
    if (this.process.exitCode !== null || this.process.signalCode !== null) return;
    this.process.kill('SIGCONT');
    this.process.kill('SIGKILL');
    await this.exited;
  }
}
