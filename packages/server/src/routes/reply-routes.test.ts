import { replayEvents, type ToolCallBlock } from '@agentkit/core';
import { textChunks, toolCallChunk } from '@agentkit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { as } from '@agentkit/test-fixtures';
import { opsAgent, SlowReleaseStore, startServer } from '../../test/helpers';
import { agentEvents, readSse } from '../testing';

type Served = Awaited<ReturnType<typeof startServer>>;
let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

describe('POST …/replies', () => {
  it('streams the reply as SSE; the events reduce to exactly the stored message', async () => {
    served = await startServer();
    const alice = as('alice', served.url);
    const response = await alice('/agents/ops/sessions/s1/replies', {
      method: 'POST',
      headers: { Accept: 'text/event-stream' },
      body: JSON.stringify({ input: 'Deploy billing.' }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    const { messages } = await readSse(response);
    expect(messages[0]!.event.type).toBe('RUN_START');
    expect(messages.at(-1)!.event).toMatchObject({ type: 'RUN_END', status: 'ended' });
    expect(messages.every((m) => typeof m.id === 'string')).toBe(true);
    const stored = await served.store.getSession('alice', 'ops', 's1');
    const reply = stored!.state.context.at(-1)!;
    expect(replayEvents(agentEvents(messages))).toEqual(reply);
    expect(served.runs).toEqual(['billing']);
  });

  it('runs in the background with 202; the events link follows it to the end', async () => {
    // The run's lease is released 200 ms after its RUN_END is logged; heartbeats every 15 s (the default).
    served = await startServer({ store: new SlowReleaseStore(200) });
    const alice = as('alice', served.url);
    const started = await alice('/agents/ops/sessions/s1/replies', {
      method: 'POST',
      body: JSON.stringify({ input: 'Deploy billing.' }),
    });
    expect(started.status).toBe(202);
    const { runId, events } = (await started.json()) as { runId: string; events: string };
    let endedAt = 0;
    const { messages } = await readSse(await alice(events), {
      until: (e) => {
        if (e.type === 'RUN_END') endedAt = Date.now();
        return false; // read until the server ends the stream
      },
    });
    // The stream ends by itself soon after the run's end, not a heartbeat later.
    expect(Date.now() - endedAt).toBeLessThan(2_000);
    expect(messages.at(-1)!.event).toMatchObject({ type: 'RUN_END', runId });
    const stored = await served.store.getSession('alice', 'ops', 's1');
    expect(replayEvents(agentEvents(messages))).toEqual(stored!.state.context.at(-1));
  });

  it('answers 409 to a second reply while one runs, and lets a client disconnect without stopping it', async () => {
    served = await startServer({ agents: { ops: opsAgent([], { delayMs: 400 }) } });
    const alice = as('alice', served.url);
    const controller = new AbortController();
    const first = await alice('/agents/ops/sessions/s1/replies', {
      method: 'POST',
      headers: { Accept: 'text/event-stream' },
      body: JSON.stringify({ input: 'Deploy.' }),
      signal: controller.signal,
    });
    expect(first.status).toBe(200);
    const second = await alice('/agents/ops/sessions/s1/replies', {
      method: 'POST',
      body: JSON.stringify({ input: 'Again.' }),
    });
    expect(second.status).toBe(409);
    expect(second.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(second.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await second.json()).toMatchObject({ status: 409, code: 'SESSION_BUSY' });
    controller.abort(); // the client goes away mid-reply
    await new Promise((r) => setTimeout(r, 900));
    const status = (await (await alice('/agents/ops/sessions/s1')).json()) as {
      status: string;
      lastReply: unknown;
    };
    expect(status.status).toBe('idle');
    expect(status.lastReply).toMatchObject({ finishedReason: 'completed' });
  });

  it('pauses for confirmation and resumes with the confirmation in another request', async () => {
    const runs: string[] = [];
    // The lease is released 200 ms after RUN_END is logged: the stream ends once it is, so the session
    // reads paused, and the confirmation is accepted, right away.
    served = await startServer({
      store: new SlowReleaseStore(200),
      agents: { ops: opsAgent(runs, { confirm: true }) },
    });
    const alice = as('alice', served.url);
    const paused = await readSse(
      await alice('/agents/ops/sessions/s1/replies', {
        method: 'POST',
        headers: { Accept: 'text/event-stream' },
        body: JSON.stringify({ input: 'Deploy.' }),
      }),
    );
    expect(paused.messages.at(-1)!.event).toMatchObject({ type: 'RUN_END', status: 'paused' });
    const view = (await (await alice('/agents/ops/sessions/s1')).json()) as {
      status: string;
      awaiting: ToolCallBlock[];
    };
    expect(view.status).toBe('paused');
    const call = view.awaiting[0]!;
    // New input while paused: refused.
    const refused = await alice('/agents/ops/sessions/s1/replies', {
      method: 'POST',
      body: JSON.stringify({ input: 'something else' }),
    });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ code: 'REPLY_PAUSED' });
    const resumed = await readSse(
      await alice('/agents/ops/sessions/s1/replies', {
        method: 'POST',
        headers: { Accept: 'text/event-stream' },
        body: JSON.stringify({
          input: {
            type: 'USER_CONFIRM_RESULT',
            confirmResults: [
              { confirmed: true, toolCall: { id: call.id, name: call.name, input: call.input } },
            ],
          },
        }),
      }),
    );
    expect(resumed.messages.at(-1)!.event).toMatchObject({ type: 'RUN_END', status: 'ended' });
    expect(runs).toEqual(['billing']);
    const stored = await served.store.getSession('alice', 'ops', 's1');
    // Both runs' events, including the logged confirmation, replay to the stored message.
    expect(replayEvents(agentEvents([...paused.messages, ...resumed.messages]) as never)).toEqual(
      stored!.state.context.at(-1),
    );
  });

  it('answers 400 to a confirmation naming another tool than the paused call; the session stays paused', async () => {
    const runs: string[] = [];
    served = await startServer({ agents: { ops: opsAgent(runs, { confirm: true }) } });
    const alice = as('alice', served.url);
    await readSse(
      await alice('/agents/ops/sessions/s1/replies', {
        method: 'POST',
        headers: { Accept: 'text/event-stream' },
        body: JSON.stringify({ input: 'Deploy.' }),
      }),
    );
    const call = ((await (await alice('/agents/ops/sessions/s1')).json()) as { awaiting: ToolCallBlock[] })
      .awaiting[0]!;
    const hostile = await alice('/agents/ops/sessions/s1/replies', {
      method: 'POST',
      body: JSON.stringify({
        input: {
          type: 'USER_CONFIRM_RESULT',
          confirmResults: [{ confirmed: true, toolCall: { ...call, name: 'no_such_tool' } }],
        },
      }),
    });
    expect(hostile.status).toBe(400);
    expect(await hostile.json()).toMatchObject({ code: 'INVALID_INPUT' });
    expect(await (await alice('/agents/ops/sessions/s1')).json()).toMatchObject({ status: 'paused' });
    expect(runs).toEqual([]);
  });

  it('interrupts a running reply within 100 ms of the request', async () => {
    served = await startServer({ agents: { ops: opsAgent([], { delayMs: 5_000 }) } });
    const alice = as('alice', served.url);
    const stream = await alice('/agents/ops/sessions/s1/replies', {
      method: 'POST',
      headers: { Accept: 'text/event-stream' },
      body: JSON.stringify({ input: 'Deploy.' }),
    });
    const reading = readSse(stream);
    await new Promise((r) => setTimeout(r, 150));
    const sent = Date.now();
    const interrupted = await alice('/agents/ops/sessions/s1/interrupt', { method: 'POST' });
    expect(interrupted.status).toBe(202);
    const { messages } = await reading;
    expect(Date.now() - sent).toBeLessThan(1_000);
    const end = messages.find((m) => m.event.type === 'REPLY_END')!.event;
    expect(end).toMatchObject({ finishedReason: 'interrupted' });
  });

  it('never replies twice for the same replyId', async () => {
    const runs: string[] = [];
    served = await startServer({ agents: { ops: opsAgent(runs) } });
    const alice = as('alice', served.url);
    const body = JSON.stringify({ input: 'Deploy.', replyId: 'req-1' });
    const post = () =>
      alice('/agents/ops/sessions/s1/replies', {
        method: 'POST',
        headers: { Accept: 'text/event-stream' },
        body,
      });
    await readSse(await post());
    const again = await readSse(await post());
    expect(again.messages.map((m) => m.event.type)).toEqual(['RUN_START', 'RUN_END']);
    expect(runs).toEqual(['billing']);
  });

  it('refuses bad bodies with 400, too large ones with 413, and too many running replies with 429', async () => {
    served = await startServer({
      agents: { ops: opsAgent([], { delayMs: 500 }) },
      limits: { maxBodyBytes: 2_000, maxRunningRepliesPerUser: 1 },
    });
    const alice = as('alice', served.url);
    for (const body of [
      '{',
      '[]',
      JSON.stringify({ input: 5 }),
      JSON.stringify({ input: { type: 'NOPE' } }),
    ]) {
      const r = await alice('/agents/ops/sessions/s1/replies', { method: 'POST', body });
      expect(r.status, body).toBe(400);
      expect(r.headers.get('content-type')).toMatch(/problem\+json/);
      const p = (await r.json()) as { detail: string; stack?: unknown };
      expect(p.stack).toBeUndefined();
    }
    const deep = `{"input":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    expect((await alice('/agents/ops/sessions/s1/replies', { method: 'POST', body: deep })).status).toBe(413);
    const nested = `{"input":"x","structuredSchema":{"a":${'['.repeat(900)}${']'.repeat(900)}}}`;
    expect((await alice('/agents/ops/sessions/s1/replies', { method: 'POST', body: nested })).status).toBe(
      400,
    );
    expect(
      (
        await alice('/agents/ops/sessions/s1/replies', {
          method: 'POST',
          body: JSON.stringify({ input: 'x'.repeat(3_000) }),
        })
      ).status,
    ).toBe(413);
    const first = await alice('/agents/ops/sessions/a/replies', {
      method: 'POST',
      body: JSON.stringify({ input: 'go' }),
    });
    expect(first.status).toBe(202);
    const limited = await alice('/agents/ops/sessions/b/replies', {
      method: 'POST',
      body: JSON.stringify({ input: 'go' }),
    });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
  });

  it('answers 400 to a structuredSchema the agent cannot honour, and the session stays usable', async () => {
    served = await startServer();
    const alice = as('alice', served.url);
    const r = await alice('/agents/ops/sessions/s1/replies', {
      method: 'POST',
      body: JSON.stringify({ input: 'Deploy.', structuredSchema: { type: 'object' } }),
    });
    expect(r.status).toBe(400);
    expect(await r.json()).toMatchObject({
      code: 'INVALID_INPUT',
      detail: expect.stringMatching(/structuredSchema/),
    });
    const { messages } = await readSse(
      await alice('/agents/ops/sessions/s1/replies', {
        method: 'POST',
        headers: { Accept: 'text/event-stream' },
        body: JSON.stringify({ input: 'Deploy.' }),
      }),
    );
    expect(messages.at(-1)!.event).toMatchObject({ type: 'RUN_END', status: 'ended' });
  });

  it('continues a reply whose process stopped when asked with input null', async () => {
    const runs: string[] = [];
    served = await startServer({
      agents: {
        ops: opsAgent(runs, {
          script: [[toolCallChunk('deploy', { service: 'search' }, 'c9')], textChunks('Done.')],
        }),
      },
    });
    // A state saved by a process that died inside the deploy tool (its checkpoint marked the call started).
    const { Agent, InMemorySessionStore: _ } = await import('@agentkit/core');
    const { ScriptedModel } = await import('@agentkit/core/testing');
    let crash: unknown;
    const dying = new Agent({
      name: 'ops',
      model: new ScriptedModel([[toolCallChunk('deploy', { service: 'billing' }, 'c1')], textChunks('x')]),
      tools: [
        {
          name: 'deploy',
          description: 'd',
          inputSchema: { type: 'object' },
          execute: (_: unknown, ctx: { state: unknown }) => {
            crash ??= JSON.parse(JSON.stringify(ctx.state));
            return 'ok';
          },
        },
      ],
    });
    await dying.reply('Deploy.');
    await served.store.upsertSession('alice', 'ops', 's1', { state: crash as never });
    const alice = as('alice', served.url);
    const view = (await (await alice('/agents/ops/sessions/s1')).json()) as { status: string };
    expect(view.status).toBe('failed');
    const { messages } = await readSse(
      await alice('/agents/ops/sessions/s1/replies', {
        method: 'POST',
        headers: { Accept: 'text/event-stream' },
        body: JSON.stringify({ input: null }),
      }),
    );
    expect(messages[1]!.event.type).toBe('REPLY_SNAPSHOT');
    const stored = await served.store.getSession('alice', 'ops', 's1');
    expect(replayEvents(agentEvents(messages))).toEqual(stored!.state.context.at(-1));
    expect(JSON.stringify(stored!.state.context.at(-1))).toMatch(/may or may not have taken effect/);
    expect(runs).toEqual(['search']);
  });
});
