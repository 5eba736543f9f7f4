import { replayEvents } from '@agentkit/core';
import { textChunks } from '@agentkit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { as } from '@agentkit/test-fixtures';
import { opsAgent, startServer } from '../../test/helpers';
import { InMemoryEventLog } from '../in-memory-event-log';
import { agentEvents, readSse } from '../testing';

type Served = Awaited<ReturnType<typeof startServer>>;
let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

/** A model that streams a long answer slowly: many deltas over about a second. */
const slowAnswer = () =>
  opsAgent([], { script: [{ chunks: textChunks('word '.repeat(60), 5), delayMs: 15 }] });

describe('GET …/events', () => {
  it('resumes with Last-Event-ID exactly after the last event seen: no gap, no duplicate', async () => {
    served = await startServer({ agents: { ops: slowAnswer() } });
    const alice = as('alice', served.url);
    await alice('/agents/ops/sessions/s1/replies', {
      method: 'POST',
      body: JSON.stringify({ input: 'Talk.' }),
    });
    // Read part of the stream, then drop the connection mid-reply.
    const cut = new AbortController();
    let seen = 0;
    const first = await readSse(await alice('/agents/ops/sessions/s1/events', { signal: cut.signal }), {
      until: (e) => e.type === 'TEXT_BLOCK_DELTA' && ++seen === 10,
    });
    cut.abort();
    const lastId = first.messages.at(-1)!.id!;
    const rest = await readSse(
      await alice('/agents/ops/sessions/s1/events', { headers: { 'Last-Event-ID': lastId } }),
    );
    const all = [...first.messages, ...rest.messages];
    const ids = all.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(rest.messages.at(-1)!.event.type).toBe('RUN_END');
    const stored = await served.store.getSession('alice', 'ops', 's1');
    expect(replayEvents(agentEvents(all))).toEqual(stored!.state.context.at(-1));
    // The same with the query parameter, for clients that are not EventSource.
    const viaQuery = await readSse(await alice(`/agents/ops/sessions/s1/events?after=${lastId}`));
    expect(viaQuery.messages.map((m) => m.id)).toEqual(rest.messages.map((m) => m.id));
  });

  it('replays a finished reply from its start, then ends', async () => {
    served = await startServer();
    const alice = as('alice', served.url);
    await readSse(
      await alice('/agents/ops/sessions/s1/replies', {
        method: 'POST',
        headers: { Accept: 'text/event-stream' },
        body: JSON.stringify({ input: 'Deploy.' }),
      }),
    );
    const { messages } = await readSse(await alice('/agents/ops/sessions/s1/events'));
    expect(messages[0]!.event.type).toBe('REPLY_START');
    expect(messages.at(-1)!.event.type).toBe('RUN_END');
    const stored = await served.store.getSession('alice', 'ops', 's1');
    expect(replayEvents(agentEvents(messages))).toEqual(stored!.state.context.at(-1));
  });

  it('sends heartbeats while a reply is quiet', async () => {
    served = await startServer({
      agents: { ops: opsAgent([], { delayMs: 700 }) },
      limits: { heartbeatMs: 100 },
    });
    const alice = as('alice', served.url);
    const { comments } = await readSse(
      await alice('/agents/ops/sessions/s1/replies', {
        method: 'POST',
        headers: { Accept: 'text/event-stream' },
        body: JSON.stringify({ input: 'Deploy.' }),
      }),
    );
    expect(comments).toBeGreaterThanOrEqual(3);
  });

  it('answers 400 for an event id this server never sent, 404 for an unknown or foreign session', async () => {
    served = await startServer();
    const alice = as('alice', served.url);
    await alice('/agents/ops/sessions', { method: 'POST', body: JSON.stringify({ sessionId: 's1' }) });
    const bad = await alice('/agents/ops/sessions/s1/events', { headers: { 'Last-Event-ID': 'abc' } });
    expect(bad.status).toBe(400);
    expect((await as('bob', served.url)('/agents/ops/sessions/s1/events')).status).toBe(404);
    expect((await alice('/agents/ops/sessions/nope/events')).status).toBe(404);
  });

  it('ends at once for a Last-Event-ID past the end of an idle session (it never spins)', async () => {
    // Counts the follower's reads: a follower spinning on an idle session reads without end (and with
    // the in-memory log, never yields to the event loop: the whole process froze).
    const log = new InMemoryEventLog();
    const read = log.read.bind(log);
    let reads = 0;
    log.read = async (...args) => {
      if (++reads > 100) throw new Error('the follower spins');
      return read(...args);
    };
    served = await startServer({ eventLog: log });
    const alice = as('alice', served.url);
    await alice('/agents/ops/sessions', { method: 'POST', body: JSON.stringify({ sessionId: 'e1' }) });
    const empty = await readSse(
      await alice('/agents/ops/sessions/e1/events', { headers: { 'Last-Event-ID': '5-0' } }),
    );
    expect(empty.messages).toEqual([]);
    expect(reads).toBeLessThan(5);

    await readSse(
      await alice('/agents/ops/sessions/e1/replies', {
        method: 'POST',
        headers: { Accept: 'text/event-stream' },
        body: JSON.stringify({ input: 'Deploy.' }),
      }),
    );
    reads = 0;
    const future = await readSse(
      await alice('/agents/ops/sessions/e1/events', { headers: { 'Last-Event-ID': '999999999999999-0' } }),
    );
    expect(future.messages).toEqual([]);
    expect(reads).toBeLessThan(5);
  });
});
