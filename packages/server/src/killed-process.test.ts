import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { as } from '@agentkit/test-fixtures';
import { deleteByPrefix, REDIS_URL, uniquePrefix } from '@agentkit/test-redis';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { readSse } from './testing';

const SERVER = fileURLToPath(new URL('../test/redis-server-process.ts', import.meta.url));
const prefix = uniquePrefix('killed-server');
const children: ChildProcess[] = [];

/** A server process on Redis (see redis-server-process.ts), with a short lease and heartbeat. */
async function startServerProcess(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(
    process.execPath,
    ['--conditions=@agentkit/source', '--import', 'tsx', SERVER, prefix],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, LEASE_TTL_MS: '1500', HEARTBEAT_MS: '500' },
    },
  );
  children.push(child);
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`server process exited with ${code}`)));
  });
  return { url: url.trim(), child };
}

afterAll(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  await Promise.all(
    children.map(
      (c) => new Promise((r) => (c.exitCode !== null || c.signalCode !== null ? r(null) : c.once('exit', r))),
    ),
  );
  const admin = new Redis(REDIS_URL);
  await deleteByPrefix(admin, prefix);
  admin.disconnect();
});

describe('a server process killed mid-reply (kill -9)', () => {
  it('ends the streams following its reply in another process once its lease is gone, instead of waiting for a RUN_END that never comes', async () => {
    const [a, b] = await Promise.all([startServerProcess(), startServerProcess()]);
    const started = await as('alice', a.url)('/agents/talker/sessions/k1/replies', {
      method: 'POST',
      body: JSON.stringify({ input: 'Talk to me.' }),
    });
    expect(started.status).toBe(202);
    let deltas = 0;
    let killedAt = 0;
    const followed = await readSse(
      await as('alice', b.url)('/agents/talker/sessions/k1/events', { signal: AbortSignal.timeout(20_000) }),
      {
        until: (e) => {
          if (e.type === 'TEXT_BLOCK_DELTA' && ++deltas === 5) {
            a.child.kill('SIGKILL');
            killedAt = Date.now();
          }
          return false;
        },
      },
    );
    // The lease (1.5 s) expires, and the follower sees it within a heartbeat (0.5 s).
    expect(Date.now() - killedAt).toBeLessThan(8_000);
    expect(followed.messages.some((m) => m.event.type === 'RUN_END')).toBe(false);
    // A client that follows again now is told at once that nothing runs.
    const at = Date.now();
    const again = await readSse(
      await as('alice', b.url)('/agents/talker/sessions/k1/events', {
        headers: { 'Last-Event-ID': followed.messages.at(-1)!.id! },
        signal: AbortSignal.timeout(20_000),
      }),
    );
    expect(again.messages).toEqual([]);
    expect(Date.now() - at).toBeLessThan(2_000);
    // And the session takes a new reply on B.
    const next = await readSse(
      await as('alice', b.url)('/agents/talker/sessions/k1/replies', {
        method: 'POST',
        headers: { Accept: 'text/event-stream' },
        body: JSON.stringify({ input: null }),
      }),
    );
    expect(next.messages.at(-1)!.event).toMatchObject({ type: 'RUN_END', status: 'ended' });
  }, 60_000);
});
