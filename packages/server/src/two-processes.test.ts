import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { replayEvents } from '@agentkit/core';
import { RedisStorage } from '@agentkit/storage-redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { as } from '@agentkit/test-fixtures';
import { agentEvents, readSse } from './testing';
import { REDIS_URL, deleteByPrefix, uniquePrefix } from '@agentkit/test-redis';
import { Redis } from 'ioredis';

const SERVER = fileURLToPath(new URL('../test/redis-server-process.ts', import.meta.url));
const prefix = uniquePrefix('two-servers');
const servers: ChildProcess[] = [];
const urls: string[] = [];

async function startServerProcess(): Promise<string> {
  const child = spawn(
    process.execPath,
    ['--conditions=@agentkit/source', '--import', 'tsx', SERVER, prefix],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  servers.push(child);
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`server process exited with ${code}`)));
  });
  return line.trim();
}

beforeAll(async () => {
  urls.push(await startServerProcess(), await startServerProcess());
}, 60_000);

afterAll(async () => {
  for (const child of servers) child.kill('SIGTERM');
  await Promise.all(
    servers.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))),
  );
  const admin = new Redis(REDIS_URL);
  await deleteByPrefix(admin, prefix);
  admin.disconnect();
});

describe('two server processes sharing Redis', () => {
  it('a reply started through A is followed through B, cut mid-reply and resumed with Last-Event-ID', async () => {
    const [a, b] = urls as [string, string];
    const started = await as('alice', a)('/agents/talker/sessions/s1/replies', {
      method: 'POST',
      body: JSON.stringify({ input: 'Talk to me.' }),
    });
    expect(started.status).toBe(202);
    const cut = new AbortController();
    let deltas = 0;
    const first = await readSse(
      await as('alice', b)('/agents/talker/sessions/s1/events', { signal: cut.signal }),
      {
        until: (e) => e.type === 'TEXT_BLOCK_DELTA' && ++deltas === 15,
      },
    );
    cut.abort();
    const lastId = first.messages.at(-1)!.id!;
    // Resume on the other process, which did not run the reply either way.
    const rest = await readSse(
      await as('alice', a)('/agents/talker/sessions/s1/events', { headers: { 'Last-Event-ID': lastId } }),
    );
    const all = [...first.messages, ...rest.messages];
    expect(new Set(all.map((m) => m.id)).size).toBe(all.length);
    expect(rest.messages.at(-1)!.event).toMatchObject({ type: 'RUN_END', status: 'ended' });
    const store = new RedisStorage({ url: REDIS_URL, keyPrefix: `${prefix}:s` });
    try {
      const stored = await store.getSession('alice', 'talker', 's1');
      expect(replayEvents(agentEvents(all))).toEqual(stored!.state.context.at(-1));
    } finally {
      await store.close();
    }
  });

  it('an interrupt sent to B stops a reply running in A within 100 ms', async () => {
    const [a, b] = urls as [string, string];
    const stream = readSse(
      await as('bob', a)('/agents/talker/sessions/s2/replies', {
        method: 'POST',
        headers: { Accept: 'text/event-stream' },
        body: JSON.stringify({ input: 'Talk.' }),
      }),
      { until: (e) => e.type === 'REPLY_END' },
    );
    await new Promise((r) => setTimeout(r, 200));
    const sent = performance.now();
    const interrupted = await as('bob', b)('/agents/talker/sessions/s2/interrupt', { method: 'POST' });
    expect(interrupted.status).toBe(202);
    const { messages } = await stream;
    const took = performance.now() - sent;
    expect(messages.at(-1)!.event).toMatchObject({ type: 'REPLY_END', finishedReason: 'interrupted' });
    expect(took).toBeLessThan(500); // the model streams one delta per 15 ms: an unheeded interrupt takes > 1 s
  });
});
