// Writers killed with SIGKILL at random moments (mid-save, mid-lease, mid-cleanup) never leave a torn or
// unreadable session, never roll a save back, and never keep the session from the next writer.
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAgentState } from '@agentkit/core';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { FileSessionStore } from '../src/file-session-store';
import { sleep, startWorker } from './worker-process';

let directory: string;
let store: FileSessionStore;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'agentkit-kill-'));
  store = new FileSessionStore({ directory });
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

const KILLS = 60;
const LANES = 2; // sessions killed in parallel, to keep the run short on a loaded machine

/** Kills `rounds` churn workers on one session, checking the session after each kill; returns the kills. */
async function lane(session: string, rounds: number): Promise<number> {
  await store.upsertSession('u', 'a', session, { state: createAgentState({ sessionId: session }) });
  let last = -1;
  let kills = 0;
  for (let round = 0; round < rounds; round++) {
    const worker = startWorker(['churn', directory, session]);
    try {
      await worker.line((l) => l === 'writing');
      await sleep(Math.random() * 120);
    } finally {
      worker.child.kill('SIGKILL');
    }
    await worker.exited;
    kills++;
    // Readable and whole: the payload is the one saved with the counter, never a mix or a torn file.
    const record = await store.getSession('u', 'a', session);
    const n = record?.state.plugins.n as number;
    expect(record?.state.plugins.payload).toBe(`${n}:${'x'.repeat(100_000)}`);
    expect(n).toBeGreaterThanOrEqual(last); // no acknowledged save rolled back
    last = n;
    // The dead worker's lease is free at once: no waiting for its 60 s expiry.
    expect(await store.getLease('u', 'a', session)).toBeNull();
  }
  // The next writer gets in, and its write cleans every leftover of the killed ones.
  const { token } = await store.acquireLease('u', 'a', session);
  const record = await store.getSession('u', 'a', session);
  await store.updateSessionState('u', 'a', session, record!.state, { leaseToken: token });
  await store.releaseLease('u', 'a', session, token);
  const key = { userId: 'u', agentId: 'a', sessionId: session };
  expect(await readdir(store.sessionDirectory(key))).toHaveLength(1);
  expect(await readdir(`${store.sessionDirectory(key)}.lease`)).toHaveLength(1);
  return kills;
}

it(`${KILLS} writers killed at random moments never leave a torn or unreadable session`, async () => {
  const kills = await Promise.all(Array.from({ length: LANES }, (_, i) => lane(`crashy${i}`, KILLS / LANES)));
  expect(kills.reduce((a, b) => a + b, 0)).toBe(KILLS);
  const { sessions, skipped } = await store.listSessions('u', 'a');
  expect(sessions.map((s) => s.sessionId).sort()).toEqual(['crashy0', 'crashy1']);
  expect(skipped).toEqual([]);
}, 300_000);
