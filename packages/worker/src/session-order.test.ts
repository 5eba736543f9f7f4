import type { RunEndEvent, RunStartEvent } from '@agentkit/server';
import { describe, expect, it } from 'vitest';
import { post, runEnd, settled, world } from '../test/fixture';
import { keysOf } from '../test/world';

describe('per-session order', () => {
  it("runs one session's inputs one at a time, in arrival order, while sessions run in parallel", async () => {
    const w = await world('order', {
      runner: { whenBusy: 'queue' },
      config: { modelMs: [30, 60], deployMs: 20 },
    });
    const sessions = ['a', 'b', 'c', 'd'];
    const turns = 5;
    const runs: Record<string, string[]> = {};
    // Everything is enqueued before any worker runs, so workers fetch a session's later jobs first as
    // often as its first: the line must hold them back.
    for (let t = 0; t < turns; t++)
      for (const s of sessions) {
        const { status, body } = await post(w.user, s, { input: `turn ${t}` });
        expect(status).toBe(202);
        (runs[s] ??= []).push(body.runId!);
      }
    await Promise.all([w.addWorker({ concurrency: 8 }), w.addWorker({ concurrency: 8 })]);
    for (const s of sessions) await runEnd(w, s, runs[s]!.at(-1)!);

    const spans: Array<{ session: string; start: number; end: number }> = [];
    for (const s of sessions) {
      const record = await w.shared.store.getSession('alice', 'ops', s);
      const users = record!.state.context.filter((m) => m.role === 'user');
      expect(users.map((m) => (m.content[0] as { text: string }).text)).toEqual(
        Array.from({ length: turns }, (_, t) => `turn ${t}`),
      );
      const replies = record!.state.context.filter((m) => m.role === 'assistant');
      expect(replies.map((m) => m.finishedReason)).toEqual(Array(turns).fill('completed'));
      // The log: each run starts after the previous one ended, in the order of the requests.
      const entries = await w.shared.eventLog.read(
        { userId: 'alice', agentId: 'ops', sessionId: s },
        null,
        10_000,
      );
      const markers = entries
        .map((e) => e.event)
        .filter((e): e is RunStartEvent | RunEndEvent => e.type === 'RUN_START' || e.type === 'RUN_END');
      expect(markers.map((m) => `${m.type} ${m.runId}`)).toEqual(
        runs[s]!.flatMap((id) => [`RUN_START ${id}`, `RUN_END ${id}`]),
      );
      for (let i = 0; i < markers.length; i += 2)
        spans.push({
          session: s,
          start: Date.parse(markers[i]!.createdAt),
          end: Date.parse(markers[i + 1]!.createdAt),
        });
    }
    // Sessions ran side by side: some run of one session overlapped some run of another.
    const overlaps = spans.filter((x) =>
      spans.some((y) => y.session !== x.session && y.start < x.end && x.start < y.end),
    );
    expect(overlaps.length).toBeGreaterThan(0);
    expect(await settled(w)).toEqual({
      wait: 0,
      delayed: 0,
      active: 0,
      failed: 0,
    });
  }, 60_000);

  it('keeps the order when the first reply waits for a retry: the inputs behind it wait too', async () => {
    const w = await world('order-retry', {
      runner: { whenBusy: 'queue', backoff: { type: 'fixed', delay: 500 } },
      config: { modelMs: [20, 30], deployMs: 10 },
    });
    await w.shared.book.set(`${keysOf(w.config).book}:outage`, 1); // the first model call fails (429)
    const runs: string[] = [];
    for (let t = 0; t < 3; t++) runs.push((await post(w.user, 's', { input: `turn ${t}` })).body.runId!);
    // One job at a time: while the first waits for its retry, the worker is free for the next one.
    await w.addWorker({ concurrency: 1 });
    for (const id of runs) expect(await runEnd(w, 's', id)).toMatchObject({ status: 'ended' });
    const record = await w.shared.store.getSession('alice', 'ops', 's');
    expect(
      record!.state.context.map((m) =>
        m.role === 'user' ? (m.content[0] as { text: string }).text : `${m.finishedReason}`,
      ),
    ).toEqual(['turn 0', 'error', 'completed', 'turn 1', 'completed', 'turn 2', 'completed']);
    const retried = record!.state.context[2]!;
    expect(retried.id).toMatch(/~retry-1$/);
  }, 60_000);

  it('a session with a long line does not hold back others: their replies finish first', async () => {
    const w = await world('starve', {
      runner: { whenBusy: 'queue' },
      config: { modelMs: [40, 40], deployMs: 10 },
    });
    const busy: string[] = [];
    for (let t = 0; t < 8; t++) busy.push((await post(w.user, 'busy', { input: `turn ${t}` })).body.runId!);
    const others: string[] = [];
    for (const s of ['x', 'y', 'z']) others.push((await post(w.user, s, { input: 'one' })).body.runId!);
    await w.addWorker({ concurrency: 4 });
    const ends = await Promise.all(
      ['x', 'y', 'z'].map(async (s, i) => {
        await runEnd(w, s, others[i]!);
        return Date.now();
      }),
    );
    await runEnd(w, 'busy', busy.at(-1)!);
    const busyDone = Date.now();
    // The busy session's eight replies run one after another; the others do not wait for them.
    for (const end of ends) expect(end).toBeLessThan(busyDone);
  }, 60_000);
});
