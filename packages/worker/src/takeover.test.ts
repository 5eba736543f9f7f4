import { type Msg, replayEvents, type ToolResultBlock } from '@agentkit/core';
import type { RunStartEvent } from '@agentkit/server';
import { agentEvents, SseReader } from '@agentkit/server/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { startProcess, type TestProcess } from '../test/processes';
import { deleteByPrefix, uniquePrefix } from '@agentkit/test-redis';
import { openShared, worldServer } from '../test/setup';
import { as } from '@agentkit/test-fixtures';
import { keysOf, type WorldConfig } from '../test/world';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function world(config: WorldConfig) {
  const shared = openShared(config);
  const server = await worldServer(config, shared);
  const processes: TestProcess[] = [];
  cleanups.push(async () => {
    await server.close();
    await Promise.all(processes.map((p) => p.kill()));
    await deleteByPrefix(shared.book, config.prefix);
    await shared.close();
  });
  const worker = async (options: object = {}) => {
    const p = await startProcess('worker-process.ts', config, options);
    processes.push(p);
    return p;
  };
  return { shared, server, worker, user: as('alice', server.url) };
}

describe('a worker killed mid-reply (kill -9)', () => {
  for (const when of ['after a recorded deploy', 'during a deploy'] as const)
    it(`another worker continues from the last checkpoint (${when}); the client's stream ends as the stored message`, async () => {
      const config: WorldConfig = { prefix: uniquePrefix('takeover'), modelMs: [150, 150], deployMs: 600 };
      const w = await world(config);
      const first = await w.worker();
      const res = await w.user('/agents/ops/sessions/s1/replies', {
        method: 'POST',
        headers: { Accept: 'text/event-stream' },
        body: JSON.stringify({ input: 'Deploy.' }),
      });
      const stream = new SseReader(res);
      let deployId = '';
      if (when === 'after a recorded deploy') {
        await stream.until((e) => e.type === 'TOOL_RESULT_END');
        await new Promise((r) => setTimeout(r, 80)); // its checkpoint lands; the next model call takes 150 ms
      } else {
        const call = await stream.until((e) => e.type === 'TOOL_CALL_END');
        deployId = (call.event as { toolCallId: string }).toolCallId;
        await new Promise((r) => setTimeout(r, 200)); // the deploy runs for 600 ms
      }
      await first.kill();
      const killedAt = Date.now();
      await w.worker();
      const restart = (await stream.until((e) => e.type === 'RUN_START')).event;
      const tookOverAfter = Date.now() - killedAt;
      const next = (await stream.until(() => true)).event;
      await stream.until((e) => e.type === 'RUN_END');
      await stream.cancel();

      expect(restart).toMatchObject({
        type: 'RUN_START',
        runId: (stream.messages[0]!.event as RunStartEvent).runId,
      });
      expect(next.type, 'the run that takes over starts with the checkpointed reply').toBe('REPLY_SNAPSHOT');
      expect(tookOverAfter).toBeLessThan(10_000);
      const record = await w.shared.store.getSession('alice', 'ops', 's1');
      const stored = record!.state.context.at(-1) as Msg;
      expect(stored.finishedReason).toBe('completed');
      expect(replayEvents(agentEvents(stream.messages))).toEqual(stored);

      const results = new Map(
        stored.content.filter((b): b is ToolResultBlock => b.type === 'tool_result').map((r) => [r.id, r]),
      );
      const deploys = stored.content.filter((b) => b.type === 'tool_call' && b.name === 'deploy');
      expect(deploys).toHaveLength(2);
      for (const call of deploys) {
        const executions = Number(await w.shared.book.get(`${keysOf(config).book}:exec:${call.id}`));
        const result = results.get(call.id)!;
        if (call.id === deployId) {
          expect(executions, 'the deploy the dead worker ran is not run again').toBe(1);
          expect(result.state).toBe('interrupted');
          expect(JSON.stringify(result.output)).toMatch(/may or may not have taken effect/);
        } else {
          expect(result.state).toBe('success');
          expect(executions).toBe(1);
        }
      }
      expect(Number(await w.shared.book.get(`${keysOf(config).book}:overlap`))).toBe(0);
    }, 60_000);

  it('a job whose workers die more than maxStalledCount times ends failed for its followers, and the session moves on', async () => {
    const config: WorldConfig = { prefix: uniquePrefix('stalled'), modelMs: [100, 100], deployMs: 5000 };
    const w = await world(config);
    const options = { maxStalledCount: 1 };
    const res = await w.user('/agents/ops/sessions/s1/replies', {
      method: 'POST',
      headers: { Accept: 'text/event-stream' },
      body: JSON.stringify({ input: 'Deploy.' }),
    });
    const stream = new SseReader(res);
    // Two workers in turn die inside the 5 s deploy: the second stall is one too many.
    for (let i = 0; i < 2; i++) {
      const doomed = await w.worker(options);
      await stream.until((e) => e.type === 'TOOL_CALL_END');
      await doomed.kill();
    }
    await w.worker(options);
    const end = (await stream.until((e) => e.type === 'RUN_END')).event;
    await stream.cancel();
    expect(end).toMatchObject({ type: 'RUN_END', status: 'failed', error: { code: 'JOB_STALLED' } });
    // The session's line moved on: its next reply runs.
    const next = await w.user('/agents/ops/sessions/s1/replies', {
      method: 'POST',
      headers: { Accept: 'text/event-stream' },
      body: JSON.stringify({ input: 'Anything new?' }),
    });
    expect(next.status).toBe(200);
    const nextStream = new SseReader(next);
    const nextEnd = (await nextStream.until((e) => e.type === 'RUN_END')).event;
    await nextStream.cancel();
    expect(nextEnd).toMatchObject({ type: 'RUN_END' });
    expect((nextEnd as { status: string }).status).not.toBe('failed');
  }, 90_000);
});
