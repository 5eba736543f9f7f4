import {
  Agent,
  type ChatModel,
  InMemorySessionStore,
  type ModelChunk,
  SessionLease,
  StoreConnectionError,
  replayEvents,
  userMsg,
} from '@agentkit/core';
import { ScriptedModel, textChunks } from '@agentkit/core/testing';
import { describe, expect, it } from 'vitest';
import { InMemoryEventLog } from './in-memory-event-log';
import { type AgentFactory, runReply } from './run-reply';

const session = { userId: 'u', agentId: 'a', sessionId: 's' };
const agent = (): AgentFactory => {
  const model = new ScriptedModel([textChunks('Hello there.', 3)], { onExhausted: 'repeat' });
  return ({ state }) => new Agent({ name: 'a', model, state });
};

async function setup() {
  const store = new InMemorySessionStore();
  const log = new InMemoryEventLog();
  const lease = await SessionLease.acquire(store, session);
  return { store, log, lease };
}

describe('runReply', () => {
  it('logs RUN_START, the prelude, the reply and RUN_END; the log replays to the saved message', async () => {
    const { store, log, lease } = await setup();
    const prelude = { type: 'USER_INTERRUPT' } as const;
    const run = runReply({
      store,
      log,
      agent: agent(),
      request: { session, input: 'Hi', replyId: 'r1' },
      runId: 'run1',
      lease,
      prelude: [prelude],
    });
    await run.accepted;
    const outcome = await run.done;
    expect(outcome).toMatchObject({ status: 'ended', replyId: 'r1', ended: true, error: null });
    const events = (await log.read(session, null, 100)).map((e) => e.event);
    expect(events[0]).toMatchObject({ type: 'RUN_START', runId: 'run1', replyId: 'r1' });
    expect(events[1]).toEqual(prelude);
    expect(events.at(-1)).toMatchObject({ type: 'RUN_END', runId: 'run1', status: 'ended' });
    const saved = (await store.getSession('u', 'a', 's'))!.state.context.at(-1);
    expect(replayEvents(events.slice(2, -1) as never)).toEqual(saved);
  });

  it('logs none of what the reply does after its lease is lost (the session is another process’s then)', async () => {
    const store = new InMemorySessionStore();
    const log = new InMemoryEventLog();
    // A lease nobody renews (a process stalled past it): it ends after 150 ms, mid-reply.
    const lease = await SessionLease.acquire(store, session, { ttlMs: 150, autoRenew: false });
    const slow: ChatModel = {
      name: 'slow',
      contextSize: 100_000,
      async *stream(request): AsyncIterable<ModelChunk> {
        for (let i = 0; i < 40; i++) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          if (request.signal.aborted) throw request.signal.reason;
          yield { type: 'text', delta: `w${i} ` };
        }
      },
    };
    const run = runReply({
      store,
      log,
      agent: ({ state }) => new Agent({ name: 'a', model: slow, state }),
      request: { session, input: 'Hi', replyId: 'r1' },
      runId: 'run1',
      lease,
    });
    const outcome = await run.done;
    expect(outcome).toMatchObject({ status: 'failed', error: { code: 'LEASE_LOST' } });
    const events = (await log.read(session, null, 1000)).map((e) => e.event);
    // The reply ended interrupted in this process, but a takeover owns the session: no REPLY_END here.
    expect(events.filter((e) => e.type === 'REPLY_END')).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: 'RUN_END', status: 'failed' });
  });

  it('rejects `accepted` for refused input and logs nothing, unless logRefusal', async () => {
    const { store, log, lease } = await setup();
    const refused = runReply({
      store,
      log,
      agent: agent(),
      request: { session, input: [{ ...userMsg('x'), role: 'system' }] as never },
      runId: 'run1',
      lease,
    });
    await expect(refused.accepted).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(await refused.done).toMatchObject({ status: 'failed', ended: false });
    expect(await log.read(session, null, 10)).toEqual([]);

    const logged = runReply({
      store,
      log,
      agent: agent(),
      request: { session, input: [{ ...userMsg('x'), role: 'system' }] as never },
      runId: 'run2',
      lease,
      logRefusal: true,
    });
    expect(await logged.done).toMatchObject({ status: 'failed', ended: true });
    expect((await log.read(session, null, 10)).map((e) => e.event)).toEqual([
      expect.objectContaining({ type: 'RUN_START', runId: 'run2' }),
      expect.objectContaining({
        type: 'RUN_END',
        runId: 'run2',
        status: 'failed',
        error: expect.objectContaining({ code: 'INVALID_INPUT' }),
      }),
    ]);
  });

  it('leaves RUN_END out when endsRun says the run goes on elsewhere, and still logs the events', async () => {
    const { store, log, lease } = await setup();
    const suspend = new AbortController();
    suspend.abort();
    const run = runReply({
      store,
      log,
      agent: agent(),
      request: { session, input: 'Hi', replyId: 'r1' },
      runId: 'run1',
      lease,
      suspendSignal: suspend.signal,
      endsRun: (outcome) => outcome.status !== 'suspended',
    });
    const outcome = await run.done;
    expect(outcome).toMatchObject({ status: 'suspended', ended: false });
    const types = (await log.read(session, null, 10)).map((e) => e.event.type);
    expect(types).toEqual(['RUN_START', 'REPLY_START']);
  });

  it('still logs RUN_END (failed, STORE_CONNECTION) after an append failed, and `done` resolves', async () => {
    const { store, log, lease } = await setup();
    // A log that stops answering for one append mid-reply (a Redis that froze for a moment).
    const append = log.append.bind(log);
    let appends = 0;
    log.append = async (...args) => {
      if (++appends === 2) throw new StoreConnectionError('Redis append failed: no answer within 300 ms.');
      return append(...args);
    };
    const model = new ScriptedModel([{ chunks: textChunks('word '.repeat(20), 5), delayMs: 5 }]);
    const run = runReply({
      store,
      log,
      agent: ({ state }) => new Agent({ name: 'a', model, state }),
      request: { session, input: 'Hi' },
      runId: 'run1',
      lease,
    });
    const outcome = await run.done;
    expect(outcome).toMatchObject({ status: 'failed', ended: true, error: { code: 'STORE_CONNECTION' } });
    const events = (await log.read(session, null, 100)).map((e) => e.event);
    expect(events.at(-1)).toMatchObject({
      type: 'RUN_END',
      runId: 'run1',
      status: 'failed',
      error: { code: 'STORE_CONNECTION' },
    });
  });
});
