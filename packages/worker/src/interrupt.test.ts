import type { Msg } from '@agentkit/core';
import type { ReplyEndEvent } from '@agentkit/core';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { post, runEnd, world } from '../test/fixture';
import { startProcess } from '../test/processes';
import { REDIS_URL } from '@agentkit/test-redis';
import { readSse } from '@agentkit/server/testing';
import { as } from '@agentkit/test-fixtures';
import { keysOf } from '../test/world';
import { SessionLines } from './session-lines';

describe('interrupts', () => {
  it('sent to another server process, reach the worker process running the reply and end it within 100 ms', async () => {
    const w = await world('interrupt', { config: { talkMs: 30 } });
    const worker = await startProcess('worker-process.ts', w.config);
    const other = await startProcess('api-process.ts', w.config);
    try {
      const latencies: number[] = [];
      for (let i = 0; i < 5; i++) {
        const sessionId = `s${i}`;
        const res = await w.user(`/agents/talker/sessions/${sessionId}/replies`, {
          method: 'POST',
          headers: { Accept: 'text/event-stream' },
          body: JSON.stringify({ input: 'Talk.' }),
        });
        let deltas = 0;
        const reading = readSse(res, { until: (e) => e.type === 'TEXT_BLOCK_DELTA' && ++deltas === 5 });
        await reading;
        const sent = Date.now();
        const interrupted = await as('alice', other.line)(`/agents/talker/sessions/${sessionId}/interrupt`, {
          method: 'POST',
        });
        expect(interrupted.status).toBe(202);
        const session = { userId: 'alice', agentId: 'talker', sessionId };
        const entries = await (async () => {
          for (;;) {
            const all = await w.shared.eventLog.read(session, null, 1000);
            if (all.some((e) => e.event.type === 'RUN_END')) return all;
            await new Promise((r) => setTimeout(r, 20));
          }
        })();
        const end = entries.find((e) => e.event.type === 'REPLY_END')!.event as ReplyEndEvent;
        expect(end.finishedReason).toBe('interrupted');
        latencies.push(Date.parse(end.createdAt) - sent);
      }
      latencies.sort((a, b) => a - b);
      console.log(`interrupt → REPLY_END through another server process: ${latencies.join(', ')} ms`);
      expect(latencies[2]).toBeLessThan(100); // median; the talker would talk for 2.4 s more
      expect(latencies[4]).toBeLessThan(1000);
    } finally {
      await Promise.all([worker.kill(), other.kill()]);
    }
  }, 60_000);

  it('stick to a job that has not started: it ends interrupted when a worker takes it; later jobs do not', async () => {
    const w = await world('interrupt-queued', { runner: { whenBusy: 'queue' } });
    const first = await post(w.user, 's1', { input: 'Deploy.' });
    // Through the HTTP route: the job waits in the queue (no worker yet), no lease is held.
    expect((await w.user('/agents/ops/sessions/s1/interrupt', { method: 'POST' })).status).toBe(202);
    const second = await post(w.user, 's1', { input: 'Deploy again.' });
    await w.addWorker();
    expect(await runEnd(w, 's1', first.body.runId!)).toMatchObject({ status: 'ended' });
    expect(await runEnd(w, 's1', second.body.runId!)).toMatchObject({ status: 'ended' });
    const record = await w.shared.store.getSession('alice', 'ops', 's1');
    const replies = record!.state.context.filter((m: Msg) => m.role === 'assistant');
    expect(replies.map((m) => m.finishedReason)).toEqual(['interrupted', 'completed']);
    expect(replies[0]!.content.filter((b) => b.type === 'tool_call')).toEqual([]); // nothing ran
    // Nothing to interrupt once the jobs are over (they leave the line just after their RUN_END).
    const job = await w.server.runner.queue.getJob(second.body.runId!);
    await job!.waitUntilFinished(w.server.runner.events);
    expect(await w.server.runner.interrupt({ userId: 'alice', agentId: 'ops', sessionId: 's1' })).toBe(false);
  }, 30_000);

  it('stick when the pub/sub message is lost: the worker sees the mark on its renewal tick', async () => {
    const w = await world('interrupt-mark', { config: { talkMs: 40 } });
    await w.addWorker(); // leaseTtlMs 2000: the marks are checked every 667 ms
    const res = await w.user('/agents/talker/sessions/s1/replies', {
      method: 'POST',
      headers: { Accept: 'text/event-stream' },
      body: JSON.stringify({ input: 'Talk.' }),
    });
    const stream = readSse(res);
    await new Promise((r) => setTimeout(r, 300));
    // Only the mark, as an interrupt whose message never arrived.
    const redis = new Redis(REDIS_URL);
    try {
      const lines = new SessionLines(redis, keysOf(w.config).lines, 'agentkit-replies');
      expect(await lines.interrupt({ userId: 'alice', agentId: 'talker', sessionId: 's1' })).not.toBeNull();
    } finally {
      redis.disconnect();
    }
    const marked = Date.now();
    const { messages } = await stream;
    const end = messages.find((m) => m.event.type === 'REPLY_END')!.event as ReplyEndEvent;
    expect(end.finishedReason).toBe('interrupted');
    // 80 words at 40 ms would take 3.2 s; the tick comes within 667 ms.
    expect(Date.parse(end.createdAt) - marked).toBeLessThan(1500);
  }, 30_000);
});
