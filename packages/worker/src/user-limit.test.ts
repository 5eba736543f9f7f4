import type { RunEndEvent, RunStartEvent } from '@agentkit/server';
import { describe, expect, it } from 'vitest';
import { post, runEnd, world } from '../test/fixture';
import { as } from '@agentkit/test-fixtures';

describe('maxRunningRepliesPerUser', () => {
  it("runs one user's replies one at a time across sessions while other users' run beside them", async () => {
    const w = await world('user-limit', { config: { modelMs: [40, 60], deployMs: 20 } });
    await w.addWorker({ concurrency: 6, maxRunningRepliesPerUser: 1 });
    const bob = as('bob', w.server.url);
    const runs: Array<{ user: string; session: string; runId: string }> = [];
    for (const s of ['a', 'b', 'c']) {
      runs.push({
        user: 'alice',
        session: s,
        runId: (await post(w.user, s, { input: 'Deploy.' })).body.runId!,
      });
      runs.push({ user: 'bob', session: s, runId: (await post(bob, s, { input: 'Deploy.' })).body.runId! });
    }
    const spans: Record<string, Array<[number, number]>> = { alice: [], bob: [] };
    for (const run of runs) {
      await runEnd(w, run.session, run.runId, 'ops', run.user);
      const entries = await w.shared.eventLog.read(
        { userId: run.user, agentId: 'ops', sessionId: run.session },
        null,
        1000,
      );
      const start = entries.find((e) => e.event.type === 'RUN_START')!.event as RunStartEvent;
      const end = entries.find((e) => e.event.type === 'RUN_END')!.event as RunEndEvent;
      spans[run.user]!.push([Date.parse(start.createdAt), Date.parse(end.createdAt)]);
    }
    const overlapping = (list: Array<[number, number]>) =>
      list.some(([s1, e1], i) => list.some(([s2, e2], j) => i !== j && s1 < e2 && s2 < e1));
    expect(overlapping(spans.alice!)).toBe(false);
    expect(overlapping(spans.bob!)).toBe(false);
    // …while alice's and bob's ran at the same time.
    expect(spans.alice!.some(([s1, e1]) => spans.bob!.some(([s2, e2]) => s1 < e2 && s2 < e1))).toBe(true);
  }, 60_000);
});
