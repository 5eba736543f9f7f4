import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { awaitingToolCalls, runSession } from '@agentkit/core';
import { afterAll, describe, expect, it } from 'vitest';
import { bookkeeping, confirmingAgent, newWorld, openStore, type StoreKind } from './world';

const CHILD = fileURLToPath(new URL('./resume-child.ts', import.meta.url));
const redis = bookkeeping();
afterAll(() => redis.quit());

async function fiveResumers(kind: StoreKind) {
  const { world, dispose } = await newWorld(kind, 'once');
  const { prefix } = world;
  const { store, close } = openStore(world);
  try {
    // A reply paused for the confirmation of a deploy.
    const paused = await runSession({
      store,
      session: { userId: 'u', agentId: 'ops', sessionId: 's1' },
      agent: (state) =>
        confirmingAgent(redis, world, state, {
          type: 'tool_call',
          id: 'call_1',
          name: 'deploy',
          delta: '{"n":1}',
        }),
      input: 'Deploy.',
    });
    const [call] = awaitingToolCalls(paused.record.state);
    expect(call?.state).toBe('asking');
    const children = Array.from({ length: 5 }, () =>
      spawn(
        process.execPath,
        [
          '--conditions=@agentkit/source',
          '--import',
          'tsx',
          CHILD,
          JSON.stringify(world),
          JSON.stringify({ id: call!.id, name: call!.name, input: call!.input }),
        ],
        {
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      ),
    );
    const outputs = children.map(
      (child) =>
        new Promise<string>((resolve) => {
          let out = '';
          child.stdout!.on('data', (d) => (out += d));
          child.on('exit', () => resolve(out.trim()));
        }),
    );
    await new Promise((r) => setTimeout(r, 1_500)); // all five have loaded and wait for the signal
    await Promise.all(children.map((c) => redis.rpush(`${prefix}:go:${c.pid}`, 'go')));
    const results = (await Promise.all(outputs)).map(
      (line) => JSON.parse(line) as { outcome?: string; code?: string },
    );
    expect(Number(await redis.get(`${prefix}:exec:call_1`)), 'deploy executions').toBe(1);
    expect(results.filter((r) => r.outcome === 'replied')).toHaveLength(1);
    for (const r of results.filter((x) => !x.outcome))
      expect(r.code).toMatch(/^(SESSION_BUSY|RESUME_MISMATCH)$/);
    const final = await store.getSession('u', 'ops', 's1');
    expect(final!.state.context.at(-1)!.finishedReason).toBe('completed');
  } finally {
    await close();
    await dispose(redis);
  }
}

describe('five processes resume the same pause at once', () => {
  it('Redis store: the confirmed tool runs exactly once; the others get a typed error before running anything', async () => {
    await fiveResumers('redis');
  });
  it('file store: the same', async () => {
    await fiveResumers('fs');
  });
});
