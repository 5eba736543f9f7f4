import { type Msg, replayEvents, type ToolResultBlock } from '@agentkit/core';
import { describe, expect, it } from 'vitest';
import { world } from '../test/fixture';
import { startProcess } from '../test/processes';
import { agentEvents, readSse, type SseEntry } from '@agentkit/server/testing';
import { keysOf } from '../test/world';

describe('graceful shutdown (SIGTERM)', () => {
  it('suspends the running reply at a safe point and hands the job back; another worker continues it', async () => {
    const w = await world('shutdown', { config: { modelMs: [250, 250], deployMs: 250 } });
    const first = await startProcess('worker-process.ts', w.config);
    const res = await w.user('/agents/ops/sessions/s1/replies', {
      method: 'POST',
      headers: { Accept: 'text/event-stream' },
      body: JSON.stringify({ input: 'Deploy.' }),
    });
    const messages: SseEntry[] = [];
    let stopped: Promise<number | null> | undefined;
    let stoppedAt = 0;
    let second: Awaited<ReturnType<typeof startProcess>> | undefined;
    const all = readSse(res, {
      until: (event) => {
        if (event.type === 'TOOL_CALL_END' && !stopped) {
          stoppedAt = Date.now();
          stopped = first.stop();
        }
        return event.type === 'RUN_END';
      },
    });
    // The worker exits once the reply reached its next safe point (after the running deploy).
    const code = await new Promise<number | null>((resolve) => {
      const wait = setInterval(() => {
        if (stopped) {
          clearInterval(wait);
          resolve(stopped);
        }
      }, 10);
    });
    const exitedAfter = Date.now() - stoppedAt;
    expect(code).toBe(0);
    expect(exitedAfter).toBeLessThan(5000);
    const job = (await w.server.runner.queue.getJobs(['wait']))[0]!;
    expect(job, 'handed back to the queue').toBeDefined();
    expect(job.attemptsMade).toBe(0);
    expect(job.stalledCounter).toBe(0);
    second = await startProcess('worker-process.ts', w.config);
    try {
      messages.push(...(await all).messages);
    } finally {
      await second.kill();
    }
    const starts = messages.filter((m) => m.event.type === 'RUN_START');
    expect(starts).toHaveLength(2);
    const after = messages[messages.indexOf(starts[1]!) + 1]!.event;
    expect(after.type).toBe('REPLY_SNAPSHOT');
    expect(messages.filter((m) => m.event.type === 'RUN_END').map((m) => m.event)).toMatchObject([
      { status: 'ended' },
    ]);
    const record = await w.shared.store.getSession('alice', 'ops', 's1');
    const stored = record!.state.context.at(-1) as Msg;
    expect(stored.finishedReason).toBe('completed');
    expect(replayEvents(agentEvents(messages))).toEqual(stored);
    // A safe point: no tool was cut short, each deploy ran once.
    for (const result of stored.content.filter((b): b is ToolResultBlock => b.type === 'tool_result'))
      expect(result.state).toBe('success');
    for (const call of stored.content.filter((b) => b.type === 'tool_call' && b.name === 'deploy'))
      expect(await w.shared.book.get(`${keysOf(w.config).book}:exec:${call.id}`)).toBe('1');
  }, 60_000);
});
