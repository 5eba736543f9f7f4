import { type Msg, replayEvents } from '@agentkit/core';
import type { LogEvent, RunStartEvent } from '@agentkit/server';
import { describe, expect, it } from 'vitest';
import { post, runEnd, world } from '../test/fixture';
import { agentEvents, readSse } from '@agentkit/server/testing';
import { keysOf } from '../test/world';

/** The events of one reply (from its REPLY_START to its REPLY_END). */
function replyEvents(messages: Array<{ event: LogEvent }>, replyId: string) {
  return agentEvents(messages).filter((e) => 'replyId' in e && e.replyId === replyId);
}

describe('provider outages', () => {
  it('a reply that ends with a rate limit is retried by a new reply; recorded tools are not run again', async () => {
    const w = await world('outage');
    await w.addWorker();
    const book = keysOf(w.config).book;
    const res = await w.user('/agents/ops/sessions/s1/replies', {
      method: 'POST',
      headers: { Accept: 'text/event-stream' },
      body: JSON.stringify({ input: 'Deploy.', replyId: 'r1' }),
    });
    // The provider goes down (for one call) after the first deploy was recorded.
    let down = false;
    const { messages } = await readSse(res, {
      until: (e) => {
        if (e.type === 'TOOL_RESULT_END' && !down) {
          down = true;
          void w.shared.book.set(`${book}:outage`, 1);
        }
        return e.type === 'RUN_END';
      },
    });
    const runStarts = messages.map((m) => m.event).filter((e): e is RunStartEvent => e.type === 'RUN_START');
    expect(runStarts).toMatchObject([
      { runId: runStarts[0]!.runId, replyId: 'r1' },
      { runId: runStarts[0]!.runId, replyId: 'r1~retry-1' },
    ]);
    expect(messages.at(-1)!.event).toMatchObject({ type: 'RUN_END', status: 'ended', replyId: 'r1~retry-1' });
    const record = await w.shared.store.getSession('alice', 'ops', 's1');
    const [failed, retried] = record!.state.context.filter((m: Msg) => m.role === 'assistant');
    expect(failed).toMatchObject({ id: 'r1', finishedReason: 'error', error: { type: 'rate_limit' } });
    expect(retried).toMatchObject({ id: 'r1~retry-1', finishedReason: 'completed' });
    // Each reply reduces to its stored message; the first reply's deploy ran once.
    expect(replayEvents(replyEvents(messages, 'r1'))).toEqual(failed);
    expect(replayEvents(replyEvents(messages, 'r1~retry-1'))).toEqual(retried);
    const recorded = failed!.content.find((b) => b.type === 'tool_call')!;
    expect(await w.shared.book.get(`${book}:exec:${recorded.id}`)).toBe('1');
    const job = await w.server.runner.queue.getJob(runStarts[0]!.runId);
    expect(await job!.waitUntilFinished(w.server.runner.events)).toEqual({
      status: 'ended',
      replyId: 'r1~retry-1',
      retries: 1,
    });
    // BullMQ counts the failed attempt and the one that completed.
    expect((await w.server.runner.queue.getJob(runStarts[0]!.runId))!.attemptsMade).toBe(2);
  }, 30_000);

  it('stops after `attempts` replies: the run ends with the last failed reply', async () => {
    const w = await world('outage-long', { runner: { attempts: 3 } });
    await w.addWorker();
    const book = keysOf(w.config).book;
    await w.shared.book.set(`${book}:outage`, 100);
    const { body } = await post(w.user, 's1', { input: 'Deploy.', replyId: 'r1' });
    expect(await runEnd(w, 's1', body.runId!)).toMatchObject({ status: 'ended', replyId: 'r1~retry-2' });
    const record = await w.shared.store.getSession('alice', 'ops', 's1');
    expect(
      record!.state.context.filter((m: Msg) => m.role === 'assistant').map((m) => [m.id, m.error?.type]),
    ).toEqual([
      ['r1', 'rate_limit'],
      ['r1~retry-1', 'rate_limit'],
      ['r1~retry-2', 'rate_limit'],
    ]);
    const job = await w.server.runner.queue.getJob(body.runId!);
    expect(await job!.waitUntilFinished(w.server.runner.events)).toMatchObject({
      status: 'ended',
      retries: 2,
    });
    expect(await w.server.runner.queue.getJobCounts('completed', 'failed', 'delayed')).toEqual({
      completed: 1,
      failed: 0,
      delayed: 0,
    });
  }, 30_000);
});
