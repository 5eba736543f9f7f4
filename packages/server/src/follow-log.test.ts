import { replayEvents } from '@agentkit/core';
import { textChunks } from '@agentkit/core/testing';
import { as } from '@agentkit/test-fixtures';
import { afterEach, describe, expect, it } from 'vitest';
import { opsAgent, startServer } from '../test/helpers';
import { InMemoryEventLog } from './in-memory-event-log';
import { agentEvents, readSse } from './testing/index';

type Served = Awaited<ReturnType<typeof startServer>>;
let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

const talker = () => opsAgent([], { script: [textChunks('word '.repeat(150), 5)] });

describe('following a log with a bound', () => {
  it("keeps a running reply's whole stream, however far past the bound it goes", async () => {
    served = await startServer({
      agents: { ops: talker() },
      eventLog: new InMemoryEventLog({ maxEntriesPerSession: 40 }),
    });
    const alice = as('alice', served.url);
    const { messages } = await readSse(
      await alice('/agents/ops/sessions/s1/replies', {
        method: 'POST',
        headers: { Accept: 'text/event-stream' },
        body: JSON.stringify({ input: 'Talk.' }),
      }),
    );
    expect(messages.length).toBeGreaterThan(150);
    const stored = await served.store.getSession('alice', 'ops', 's1');
    expect(replayEvents(agentEvents(messages))).toEqual(stored!.state.context.at(-1));
    // And from its start, afterwards.
    const again = await readSse(await alice('/agents/ops/sessions/s1/events'));
    expect(replayEvents(agentEvents(again.messages))).toEqual(stored!.state.context.at(-1));
  });

  it('tells a client whose position the log dropped (STREAM_GAP) instead of skipping entries silently', async () => {
    served = await startServer({
      agents: { ops: talker() },
      eventLog: new InMemoryEventLog({ maxEntriesPerSession: 40 }),
    });
    const alice = as('alice', served.url);
    const post = () =>
      alice('/agents/ops/sessions/s1/replies', {
        method: 'POST',
        headers: { Accept: 'text/event-stream' },
        body: JSON.stringify({ input: 'Talk.' }),
      });
    const first = await readSse(await post());
    const early = first.messages[3]!.id!;
    await readSse(await post()); // the second run's entries push the first run's out of the bound
    const resumed = await readSse(
      await alice('/agents/ops/sessions/s1/events', { headers: { 'Last-Event-ID': early } }),
    );
    expect(resumed.messages).toHaveLength(1);
    expect(resumed.messages[0]!.event).toMatchObject({ type: 'STREAM_GAP' });
    expect(resumed.messages[0]!.id).toBeUndefined();
  });

  it('gives everything to a client at a position before the first entry (0-0) when the log dropped nothing', async () => {
    served = await startServer({ agents: { ops: talker() }, eventLog: new InMemoryEventLog() });
    const alice = as('alice', served.url);
    const first = await readSse(
      await alice('/agents/ops/sessions/s1/replies', {
        method: 'POST',
        headers: { Accept: 'text/event-stream' },
        body: JSON.stringify({ input: 'Talk.' }),
      }),
    );
    const resumed = await readSse(
      await alice('/agents/ops/sessions/s1/events', { headers: { 'Last-Event-ID': '0-0' } }),
    );
    expect(resumed.messages.some((m) => (m.event as { type: string }).type === 'STREAM_GAP')).toBe(false);
    expect(resumed.messages.map((m) => m.id)).toEqual(first.messages.map((m) => m.id));
  });

  it('reports no gap to a client at the newest dropped entry: it saw everything the log dropped', async () => {
    const log = new InMemoryEventLog({ maxEntriesPerSession: 40 });
    served = await startServer({ agents: { ops: talker() }, eventLog: log });
    const alice = as('alice', served.url);
    const post = () =>
      alice('/agents/ops/sessions/s1/replies', {
        method: 'POST',
        headers: { Accept: 'text/event-stream' },
        body: JSON.stringify({ input: 'Talk.' }),
      });
    await readSse(await post());
    await readSse(await post());
    const session = { userId: 'alice', agentId: 'ops', sessionId: 's1' };
    const dropped = (await log.droppedThrough(session))!;
    const kept = await log.read(session, null, 10_000);
    const resumed = await readSse(
      await alice('/agents/ops/sessions/s1/events', { headers: { 'Last-Event-ID': dropped } }),
    );
    expect(resumed.messages[0]!.event).not.toMatchObject({ type: 'STREAM_GAP' });
    expect(resumed.messages.map((m) => m.id)).toEqual(kept.map((e) => e.id));
  });
});
