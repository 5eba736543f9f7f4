import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { BENCH_DIR } from './bench-dir';
import type { Job } from './child';

const CHILD = fileURLToPath(new URL('./child.ts', import.meta.url));

/** Runs one job in a fresh `node` process (extra node flags first) and returns its JSON result. */
export function runChild(job: Job, nodeFlags: string[] = []): Promise<Record<string, number | string>> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', ...nodeFlags, '--import', 'tsx', CHILD, JSON.stringify(job)],
      {
        cwd: BENCH_DIR,
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`child ${JSON.stringify(job)} exited ${code}:\n${err}`));
      const line = out.trim().split('\n').pop() ?? '';
      try {
        resolve(JSON.parse(line));
      } catch {
        reject(new Error(`child ${JSON.stringify(job)} printed no result:\n${out}\n${err}`));
      }
    });
  });
}
