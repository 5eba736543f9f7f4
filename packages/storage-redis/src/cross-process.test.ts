import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REDIS_URL, deleteByPrefix, uniquePrefix } from '../test/redis-server';
import { RedisStorage } from './redis-storage';

const exec = promisify(execFile);
const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

let dir: string;
let admin: Redis;
const keyPrefix = uniquePrefix('cross-process');

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentkit-xproc-'));
  admin = new Redis(REDIS_URL);
});
afterAll(async () => {
  await deleteByPrefix(admin, keyPrefix);
  await admin.quit();
  await rm(dir, { recursive: true, force: true });
});

async function step(mode: 'start' | 'resume', logFile: string) {
  const { stdout } = await exec(
    process.execPath,
    [
      '--conditions=@agentkit/source',
      '--import',
      'tsx',
      'test/agent-process.ts',
      mode,
      REDIS_URL,
      keyPrefix,
      logFile,
    ],
    // A hung child is killed rather than left running after the test gives up.
    { cwd: packageDir, timeout: 30_000, killSignal: 'SIGKILL' },
  );
  return JSON.parse(stdout) as {
    pid: number;
    finishedReason: string | null;
    text: string | null;
    version: number;
  };
}

describe('pause in one process, resume in another, through Redis', () => {
  it('process A pauses for confirmation and saves; process B resumes, finishes and saves; the tool ran once', async () => {
    const logFile = join(dir, 'tool.log');
    const a = await step('start', logFile);
    expect(a).toMatchObject({ finishedReason: null, version: 1 });
    await expect(readFile(logFile, 'utf8')).rejects.toThrow(/ENOENT/); // not run before confirmation

    const b = await step('resume', logFile);
    expect(b.pid).not.toBe(a.pid);
    expect(b).toMatchObject({ finishedReason: 'completed', text: 'Appended the line.', version: 2 });
    expect(await readFile(logFile, 'utf8')).toBe('hello\n');

    await using storage = new RedisStorage({ url: REDIS_URL, keyPrefix });
    const record = await storage.getSession('user_123', 'agent_456', 'session_789');
    expect(record?.version).toBe(2);
    const [user, reply] = record!.state.context;
    expect(record!.state.context).toHaveLength(2);
    expect(user?.role).toBe('user');
    expect(reply?.finishedReason).toBe('completed');
    expect(reply?.content.filter((b) => b.type !== 'hint')).toMatchObject([
      { type: 'tool_call', id: 'call_1', name: 'append_line', state: 'finished' },
      {
        type: 'tool_result',
        id: 'call_1',
        state: 'success',
        output: [{ type: 'text', text: 'appended hello' }],
      },
      { type: 'text', text: 'Appended the line.' },
    ]);

    // A third process resuming the finished reply again is refused and runs nothing.
    await expect(step('resume', logFile)).rejects.toThrow(
      /ResumeMismatchError: Received USER_CONFIRM_RESULT but no reply is paused/,
    );
    expect(await readFile(logFile, 'utf8')).toBe('hello\n');
    expect((await storage.getSession('user_123', 'agent_456', 'session_789'))?.version).toBe(2);
  }, 60_000);
});
