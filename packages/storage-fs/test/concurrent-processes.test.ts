// Several processes on one session at once: exactly one holds the lease, and no update is lost.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AgentState, createAgentState } from '@agentkit/core';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { FileSessionStore } from '../src/file-session-store';
import { startWorker } from './worker-process';

let directory: string;
let store: FileSessionStore;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'agentkit-procs-'));
  store = new FileSessionStore({ directory });
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

it('of N processes resuming the same session at once, exactly one gets the lease', async () => {
  const N = 6;
  for (let round = 0; round < 3; round++) {
    const session = `paused${round}`;
    const created = await store.upsertSession('u', 'a', session);
    const workers = Array.from({ length: N }, () => startWorker(['resume', directory, session], 'pipe'));
    try {
      await Promise.all(workers.map((w) => w.line((l) => l === 'ready')));
      for (const w of workers) w.child.stdin?.write('go\n');
      const outcomes = await Promise.all(workers.map((w) => w.line((l) => l !== 'ready')));
      expect(outcomes.filter((o) => o === 'won')).toHaveLength(1);
      expect(outcomes.filter((o) => o === 'SESSION_BUSY')).toHaveLength(N - 1);
      const winner = workers[outcomes.indexOf('won')]!;
      const record = await store.getSession('u', 'a', session);
      expect(record?.state.plugins.resumedBy).toBe(winner.child.pid);
      expect(record?.version).toBe(created.version + 1);
      expect((await store.getLease('u', 'a', session))?.owner).toBe(`p${winner.child.pid}`);
      for (const w of workers) w.child.stdin?.end();
      await Promise.all(workers.map((w) => w.exited));
      expect(await store.getLease('u', 'a', session)).toBeNull(); // released by the winner
    } finally {
      for (const w of workers) w.child.kill('SIGKILL');
    }
  }
}, 120_000);

it('processes incrementing one session concurrently lose no update', async () => {
  const initial: AgentState = {
    ...createAgentState({ sessionId: 'counter' }),
    plugins: { counter: 0, log: [] },
  };
  await store.upsertSession('u', 'a', 'counter', { state: initial });
  const workers = [0, 1, 2].map((i) => startWorker(['increment', directory, '15', `w${i}`]));
  const codes = await Promise.all(workers.map((w) => w.exited));
  expect(codes).toEqual([0, 0, 0]);
  const record = await store.getSession('u', 'a', 'counter');
  expect(record?.state.plugins.counter).toBe(45);
  expect(record?.version).toBe(46);
  expect(new Set(record?.state.plugins.log as string[]).size).toBe(45);
}, 60_000);
