// A writer frozen (SIGSTOP) past its lease while another process takes the session over and saves: when
// it wakes, it gets a typed error and every save the taker was told succeeded is still there.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AgentState, createAgentState } from '@agentkit/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileSessionStore } from '../src/file-session-store';
import { processState, sleep, startWorker, waitFor } from './worker-process';

let directory: string;
let store: FileSessionStore;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'agentkit-stall-'));
  store = new FileSessionStore({ directory });
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

// Long enough for the worker to save once and reach its stop on a loaded machine; the test waits it out.
const TTL_MS = 2_000;

async function createLogSession(session: string): Promise<void> {
  const state: AgentState = { ...createAgentState({ sessionId: session }), plugins: { log: [] } };
  await store.upsertSession('u', 'a', session, { state });
}

/** Saves `count` entries `<tag>-<i>` as the test process (the taker), returning those acknowledged. */
async function takeOver(session: string, count: number, leased: boolean): Promise<string[]> {
  const grant = leased ? await store.acquireLease('u', 'a', session, { owner: 'taker' }) : undefined;
  const acked: string[] = [];
  for (let i = 1; i <= count; i++) {
    const record = await store.getSession('u', 'a', session);
    const state = record!.state;
    state.plugins.log = [...(state.plugins.log as string[]), `taker-${i}`];
    await store.updateSessionState('u', 'a', session, state, {
      expectedVersion: record!.version,
      ...(grant ? { leaseToken: grant.token } : {}),
    });
    acked.push(`taker-${i}`);
  }
  if (grant) await store.releaseLease('u', 'a', session, grant.token);
  return acked;
}

/**
 * One trial: the worker saves under a lease (or with expectedVersion only) and is stopped — by itself right
 * before the link of its 2nd save, or by the test at a random moment; the test waits until the lease has
 * expired, takes over and saves `count` times, then wakes the worker. Returns what the worker and the
 * store say afterwards.
 */
async function trial(session: string, leased: boolean, count: number, randomStop: boolean) {
  await createLogSession(session);
  const worker = startWorker([
    'stall',
    directory,
    session,
    leased ? 'leased' : 'unleased',
    String(TTL_MS),
    randomStop ? 'random' : '',
  ]);
  const pid = worker.child.pid as number;
  try {
    if (randomStop) {
      await worker.line((l) => l === 'acked stalled-1');
      await sleep(Math.random() * 150);
      worker.child.kill('SIGSTOP');
    } else await worker.line((l) => l === 'stalling');
    await waitFor(() => processState(pid) === 'T', 'the worker to be stopped');
    if (leased) {
      // Alive but stopped: its lease keeps others out until it expires, then it is free.
      await waitFor(async () => (await store.getLease('u', 'a', session)) === null, 'the lease to expire');
    }
    const takerAcked = await takeOver(session, count, leased);
    worker.child.kill('SIGCONT');
    const failed = await worker.line((l) => l.startsWith('failed '));
    await worker.exited;
    const workerAcked = worker.lines.filter((l) => l.startsWith('acked ')).map((l) => l.slice(6));
    const workerTried = worker.lines.filter((l) => l.startsWith('saving ')).map((l) => l.slice(7));
    const record = await store.getSession('u', 'a', session);
    return { failed: failed.slice(7), takerAcked, workerAcked, workerTried, record: record! };
  } finally {
    worker.child.kill('SIGKILL');
  }
}

describe('a writer stopped past its lease', () => {
  it('stopped right before its final link: the woken writer gets LeaseLostError, the taker loses nothing', async () => {
    // 0 saves: the taker only took the lease. Fenced all the same (the grant itself takes a version).
    // 5 saves: the slot the stopped writer aims at has been superseded many times and would have been
    // collected, were it not named by the writer's temp file.
    let lost = 0;
    for (const [i, count] of [0, 1, 2, 5].entries()) {
      const { failed, takerAcked, workerAcked, record } = await trial(`leased${i}`, true, count, false);
      expect(failed).toBe('LEASE_LOST');
      expect(workerAcked).toEqual(['stalled-1']);
      expect(record.state.plugins.log).toEqual(['stalled-1', ...takerAcked]);
      expect(record.version).toBe(2 + count);
      lost += takerAcked.filter((e) => !(record.state.plugins.log as string[]).includes(e)).length;
      const files = await import('node:fs/promises').then((fs) =>
        fs.readdir(store.sessionDirectory({ userId: 'u', agentId: 'a', sessionId: `leased${i}` })),
      );
      expect(files.filter((f) => f.endsWith('.tmp'))).toEqual([]); // the woken writer cleaned up after itself
    }
    expect(lost).toBe(0);
  }, 120_000);

  it('without a lease, a writer stopped before its final link gets VersionConflictError', async () => {
    for (const [i, count] of [1, 4].entries()) {
      const { failed, takerAcked, workerAcked, record } = await trial(`unleased${i}`, false, count, false);
      expect(failed).toBe('VERSION_CONFLICT');
      expect(workerAcked).toEqual(['stalled-1']);
      expect(record.state.plugins.log).toEqual(['stalled-1', ...takerAcked]);
    }
  }, 120_000);

  it('stopped at random moments while saving in a loop: 0 acknowledged saves lost in any trial', async () => {
    let lost = 0;
    for (let i = 0; i < 4; i++) {
      const { failed, takerAcked, workerAcked, workerTried, record } = await trial(
        `random${i}`,
        true,
        3,
        true,
      );
      expect(failed).toBe('LEASE_LOST');
      const log = record.state.plugins.log as string[];
      // The worker's saves that landed form a prefix of what it tried (one stopped after its link but
      // before it heard back may have landed unacknowledged); the taker's saves all follow them.
      const landed = log.slice(0, log.length - takerAcked.length);
      expect(workerTried.slice(0, landed.length)).toEqual(landed);
      expect(log.slice(landed.length)).toEqual(takerAcked);
      lost += [...workerAcked, ...takerAcked].filter((e) => !log.includes(e)).length;
    }
    expect(lost).toBe(0);
  }, 120_000);
});
