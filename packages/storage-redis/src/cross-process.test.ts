import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { pausedStateFixture } from '@agentkit/core/testing';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AgentChild } from '../test/agent-child';
import { REDIS_URL, deleteByPrefix, uniquePrefix } from '@agentkit/test-redis';
import { RedisStorage } from './redis-storage';

const exec = promisify(execFile);
const packageDir = resolve(dirname(fileURLToPath(import.meta.url)), '..');

let dir: string;
let admin: Redis;
const keyPrefix = uniquePrefix('cross-process');
const children: AgentChild[] = [];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentkit-xproc-'));
  admin = new Redis(REDIS_URL);
});
afterEach(async () => {
  await Promise.all(children.splice(0).map((c) => c.kill()));
});
afterAll(async () => {
  await deleteByPrefix(admin, keyPrefix);
  await admin.quit();
  await rm(dir, { recursive: true, force: true });
});

async function step(mode: 'start' | 'resume', logFile: string, prefix = keyPrefix) {
  const { stdout } = await exec(
    process.execPath,
    [
      '--conditions=@agentkit/source',
      '--import',
      'tsx',
      'test/agent-process.ts',
      mode,
      REDIS_URL,
      prefix,
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

describe('one session, many processes, through Redis leases', () => {
  const session = ['user_123', 'agent_456', 'session_789'] as const;

  it('five processes race to resume the same pause: exactly one gets the lease, the tool runs once, the others are told who holds it', async () => {
    const prefix = `${keyPrefix}:race`;
    const logFile = join(dir, 'race.log');
    expect(await step('start', logFile, prefix)).toMatchObject({ finishedReason: null, version: 1 });
    const racers = Array.from({ length: 5 }, () => new AgentChild(['race', REDIS_URL, prefix, logFile]));
    children.push(...racers);
    for (const racer of racers) expect((await racer.next()).event).toBe('ready');
    for (const racer of racers) racer.send('go');
    const outcomes = await Promise.all(racers.map((r) => r.next()));
    const winners = outcomes.filter((o) => o.event === 'acquired');
    expect(winners).toHaveLength(1);
    const winner = winners[0] as { owner: string; token: number; pid: number };
    const losers = outcomes.filter((o) => o.event !== 'acquired');
    expect(losers).toHaveLength(4);
    for (const loser of losers)
      expect(loser).toMatchObject({
        event: 'busy',
        code: 'SESSION_BUSY',
        owner: winner.owner,
        expiresAt: expect.any(Number),
      });
    await expect(readFile(logFile, 'utf8')).rejects.toThrow(/ENOENT/); // nothing ran anywhere yet

    const chosen = racers.find((r) => r.process.pid === winner.pid) as AgentChild;
    chosen.send('resume');
    expect(await chosen.next()).toMatchObject({ event: 'done', finishedReason: 'completed', version: 2 });
    expect(await Promise.all(racers.map((r) => r.exited))).toEqual([0, 0, 0, 0, 0]);
    expect(await readFile(logFile, 'utf8')).toBe('hello\n');

    await using storage = new RedisStorage({ url: REDIS_URL, keyPrefix: prefix });
    expect((await storage.getSession(...session))?.version).toBe(2);
    expect(await storage.getLease(...session), 'the winner released its lease').toBeNull();
  }, 90_000);

  it('a holder stalled past its lease (SIGSTOP) cannot write after another process took over; nothing changes', async () => {
    const prefix = `${keyPrefix}:stall`;
    await using storage = new RedisStorage({ url: REDIS_URL, keyPrefix: prefix });
    await storage.upsertSession(...session, {
      state: pausedStateFixture({ sessionId: session[2], note: 'start' }),
    });
    const holder = new AgentChild(['stall', REDIS_URL, prefix]);
    children.push(holder);
    const { token: stalledToken } = (await holder.next()) as unknown as { token: number };
    expect((await storage.getLease(...session))?.token).toBe(stalledToken);

    holder.process.kill('SIGSTOP');
    // Its renewals stop with it: the lease runs out (600 ms) and another process takes the session over.
    const deadline = Date.now() + 10_000;
    while ((await storage.getLease(...session)) !== null) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((r) => setTimeout(r, 50));
    }
    const taker = await storage.acquireLease(...session, { owner: 'taker', ttlMs: 30_000 });
    expect(taker.token).toBeGreaterThan(stalledToken);
    const saved = await storage.updateSessionState(
      ...session,
      pausedStateFixture({ sessionId: session[2], note: 'taker' }),
      {
        leaseToken: taker.token,
      },
    );

    holder.process.kill('SIGCONT');
    holder.send('write');
    expect(await holder.next()).toMatchObject({ event: 'refused', code: 'LEASE_LOST' });
    expect(await holder.next()).toMatchObject({ event: 'signal', aborted: true, reason: 'LEASE_LOST' });
    expect(await holder.exited).toBe(0);

    const stored = await storage.getSession(...session);
    expect(stored?.version).toBe(saved.version);
    expect(stored?.state).toEqual(pausedStateFixture({ sessionId: session[2], note: 'taker' }));
    expect((await storage.getLease(...session))?.owner).toBe('taker');
    expect(await storage.releaseLease(...session, taker.token)).toBe(true);
  }, 60_000);
});
