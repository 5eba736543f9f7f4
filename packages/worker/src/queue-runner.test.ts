import { type AgentEvent, replayEvents } from '@agentkit/core';
import type { LogEvent } from '@agentkit/server';
import { afterEach, describe, expect, it } from 'vitest';
import { deleteByPrefix, uniquePrefix } from '../test/redis';
import { openShared, worldServer, worldWorker } from '../test/setup';
import { as, readSse } from '../test/sse';
import { keysOf, type WorldConfig } from '../test/world';
import type { ReplyWorker } from './start-worker';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function world(label: string) {
  const config: WorldConfig = { prefix: uniquePrefix(label) };
  const shared = openShared(config);
  const server = await worldServer(config, shared);
  const workers: ReplyWorker[] = [];
  cleanups.push(async () => {
    await server.close();
    await Promise.all(workers.map((w) => w.close()));
    await deleteByPrefix(shared.book, config.prefix);
    await shared.close();
  });
  const addWorker = async (options = {}) => {
    const worker = worldWorker(config, shared, options);
    workers.push(worker);
    await worker.waitUntilReady();
    return worker;
  };
  return { config, shared, server, workers, addWorker, user: as('alice', server.url) };
}

const agentEvents = (messages: Array<{ event: LogEvent }>) =>
  messages.map((m) => m.event).filter((e) => !e.type.startsWith('RUN_')) as AgentEvent[];

describe('QueueRunner with a worker', () => {
  it('runs a reply on the worker: the SSE response streams it, and it reduces to the stored message', async () => {
    const w = await world('basic');
    await w.addWorker();
    const res = await w.user('/agents/ops/sessions/s1/replies', {
      method: 'POST',
      headers: { Accept: 'text/event-stream' },
      body: JSON.stringify({ input: 'Deploy.' }),
    });
    expect(res.status).toBe(200);
    const messages = await readSse(res);
    expect(messages[0]!.event).toMatchObject({ type: 'RUN_START' });
    const end = messages.at(-1)!.event;
    expect(end).toMatchObject({ type: 'RUN_END', status: 'ended' });
    const record = await w.shared.store.getSession('alice', 'ops', 's1');
    const stored = record!.state.context.at(-1)!;
    expect(stored.finishedReason).toBe('completed');
    expect(replayEvents(agentEvents(messages))).toEqual(stored);
    // Each deploy ran once.
    const calls = stored.content.filter((b) => b.type === 'tool_call' && b.name === 'deploy');
    expect(calls).toHaveLength(2);
    for (const call of calls)
      expect(await w.shared.book.get(`${keysOf(w.config).book}:exec:${call.id}`)).toBe('1');
  });
});
