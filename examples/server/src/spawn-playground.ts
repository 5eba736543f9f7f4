import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A playground server started by {@link spawnPlayground}. */
export interface SpawnedPlayground {
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** Its `AGENTKIT_DEMO_DIR` (sandbox and session files), deleted by `stop`. */
  demoDir: string;
  /** What it printed so far. */
  output(): string;
  /** Sends SIGTERM, waits for the exit and deletes `demoDir`; resolves with the exit code. */
  stop(): Promise<number | null>;
}

const MAIN = fileURLToPath(new URL('./main.ts', import.meta.url));
const PROVIDER_SETTINGS = /^(OPENAI_|GEMINI_|GOOGLE_API_KEY$|REDIS_URL$)/;

/**
 * Runs `src/main.ts` as `pnpm start` would, from the sources, on a free port with the scripted model
 * (`delayMs` before each chunk), the file store in a fresh folder and no API key or Redis.
 */
export async function spawnPlayground(options: { delayMs: number }): Promise<SpawnedPlayground> {
  const demoDir = await mkdtemp(join(tmpdir(), 'agentkit-playground-'));
  // No provider key or Redis from the caller's shell: the scripted model and the file store.
  const inherited = Object.entries(process.env).filter(([name]) => !PROVIDER_SETTINGS.test(name));
  const child = spawn(process.execPath, ['--conditions=@agentkit/source', '--import', 'tsx', MAIN], {
    env: {
      ...Object.fromEntries(inherited),
      PORT: '0',
      SCRIPTED_DELAY_MS: String(options.delayMs),
      AGENTKIT_DEMO_DIR: demoDir,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => fail('did not print its URL within 30 s'), 30_000);
    const onData = () => {
      const found = /open:\s+(http:\/\/127\.0\.0\.1:\d+)\//.exec(output);
      if (found) done(() => resolve(found[1]!));
    };
    const onExit = () => fail('exited');
    child.stdout!.on('data', onData);
    child.once('exit', onExit);
    function fail(why: string) {
      done(() => reject(new Error(`The playground ${why}:\n${output}`)));
    }
    function done(settle: () => void) {
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      child.off('exit', onExit);
      settle();
    }
  }).catch(async (error) => {
    await kill(child, exited);
    await rm(demoDir, { recursive: true, force: true });
    throw error;
  });
  let stopped: Promise<number | null> | undefined;
  return {
    url,
    demoDir,
    output: () => output,
    stop: () =>
      (stopped ??= (async () => {
        const code = await kill(child, exited);
        await rm(demoDir, { recursive: true, force: true });
        return code;
      })()),
  };
}

async function kill(child: ChildProcess, exited: Promise<number | null>): Promise<number | null> {
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  try {
    return await exited;
  } finally {
    clearTimeout(timer);
  }
}
