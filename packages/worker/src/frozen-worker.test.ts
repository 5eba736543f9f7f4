import { type Msg, replayEvents } from '@agentkit/core';
import type { LogEvent } from '@agentkit/server';
import { agentEvents, SseReader } from '@agentkit/server/testing';
import { as } from '@agentkit/test-fixtures';
import { deleteByPrefix, uniquePrefix } from '@agentkit/test-redis';
import { afterEach, describe, expect, it } from 'vitest';
import { startProcess, type TestProcess } from '../test/processes';
import { openShared, worldServer } from '../test/setup';
import { keysOf, type WorldConfig } from '../test/world';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('a worker process stopped (SIGSTOP) mid-deploy past its lock and lease, then continued', () => {
  it('another worker finishes the reply; the woken one runs nothing more and logs nothing after the run ended', async () => {
    const config: WorldConfig = { prefix: uniquePrefix('frozen-worker'), modelMs: [150, 150], deployMs: 600 };
    const shared = openShared(config);
    const server = await worldServer(config, shared);
    const processes: TestProcess[] = [];
    cleanups.push(async () => {
      for (const p of processes) p.child.kill('SIGCONT');
      await server.close();
      await Promise.all(processes.map((p) => p.kill()));
      await deleteByPrefix(shared.book, config.prefix);
      await shared.close();
    });
    const first = await startProcess('worker-process.ts', config);
    processes.push(first);
    const user = as('alice', server.url);
    const res = await user('/agents/ops/sessions/s1/replies', {
      method: 'POST',
      headers: { Accept: 'text/event-stream' },
      body: JSON.stringify({ input: 'Deploy.' }),
    });
    const stream = new SseReader(res);
    await stream.until((e) => e.type === 'TOOL_CALL_END');
    await new Promise((r) => setTimeout(r, 200)); // the deploy runs for 600 ms
    first.child.kill('SIGSTOP');
    processes.push(await startProcess('worker-process.ts', config));
    await stream.until((e) => e.type === 'RUN_START');
    await stream.until((e) => e.type === 'RUN_END');
    await stream.cancel();
    first.child.kill('SIGCONT');
    await new Promise((r) => setTimeout(r, 3000));

    const session = { userId: 'alice', agentId: 'ops', sessionId: 's1' };
    const log = (await shared.eventLog.read(session, null, 10_000)).map((e) => e.event as LogEvent);
    const ends = log.filter((e) => e.type === 'RUN_END');
    expect(ends).toHaveLength(1);
    expect(log.at(-1)?.type, 'nothing logged after the run ended').toBe('RUN_END');
    const record = await shared.store.getSession('alice', 'ops', 's1');
    const stored = record!.state.context.at(-1) as Msg;
    expect(stored.finishedReason).toBe('completed');
    expect(replayEvents(agentEvents(log.map((event) => ({ event }))))).toEqual(stored);
    const book = keysOf(config).book;
    for (const call of stored.content.filter((b) => b.type === 'tool_call' && b.name === 'deploy'))
      expect(Number(await shared.book.get(`${book}:exec:${call.id}`)), call.id).toBeLessThanOrEqual(1);
    expect(Number(await shared.book.get(`${book}:overlap`))).toBe(0);
    expect(first.child.exitCode, 'the woken worker is still alive').toBeNull();
  }, 60_000);
});
