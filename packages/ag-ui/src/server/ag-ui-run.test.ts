import { Agent, defineTool, ModelError } from '@agentkit/core';
import { ScriptedModel, textChunks, toolCallChunk } from '@agentkit/core/testing';
import { readSse } from '@agentkit/server/testing';
import { type AGUIEvent, EventType, type Message, type RunFinishedEvent } from '@ag-ui/core';
import { EventSchema } from '@ag-ui/core/schemas';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { crashedState, deployAgent, waitFor } from '@agentkit/test-fixtures';
import { agentAs, startServer } from '../../test/helpers';
import { toAgUiMessages } from '../index';

type Served = Awaited<ReturnType<typeof startServer>>;
let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
  vi.restoreAllMocks();
});

const userText = (id: string, content: string): Message => ({ id, role: 'user', content });

describe('POST /agents/:agentId/ag-ui with the AG-UI HttpAgent', () => {
  it('runs the agent: every event validates, and the messages hold the text, the reasoning and the tool call', async () => {
    const warnings = vi.spyOn(console, 'warn');
    served = await startServer();
    const { agent, events, invalid } = agentAs('alice', served.endpoint, 'thread-1');
    agent.addMessage(userText('u1', 'Deploy billing.'));
    const result = await agent.runAgent({ runId: 'run-1' });
    expect(invalid).toEqual([]);
    // The client strips and warns about anything its schemas do not know: nothing here.
    expect(warnings.mock.calls.filter((c) => String(c[0]).includes('[ag-ui]'))).toEqual([]);
    expect(events[0]).toMatchObject({ type: EventType.RUN_STARTED, threadId: 'thread-1', runId: 'run-1' });
    const finished = events.at(-1) as RunFinishedEvent;
    expect(finished).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'success' } });
    expect(finished.usage).toEqual([
      expect.objectContaining({
        model: 'scripted-model',
        inputTokens: 50,
        outputTokens: 11,
        totalTokens: 61,
      }),
    ]);

    const stored = await served.store.getSession('alice', 'ops', 'thread-1');
    const reply = stored!.state.context.at(-1)!;
    expect(reply.id).toBe('run-1'); // the run id is the reply's idempotency key
    expect(agent.messages).toEqual([
      userText('u1', 'Deploy billing.'),
      { id: expect.any(String), role: 'reasoning', content: 'The user wants billing deployed.' },
      {
        id: expect.any(String),
        role: 'assistant',
        content: 'Deploying billing now.',
        toolCalls: [
          {
            id: 'call_deploy',
            type: 'function',
            function: { name: 'deploy', arguments: '{"service":"billing"}' },
          },
        ],
      },
      expect.objectContaining({ role: 'tool', toolCallId: 'call_deploy', content: 'deployed billing' }),
      { id: expect.any(String), role: 'assistant', content: 'Billing is deployed.' },
    ]);
    // The streamed messages are the saved reply, message for message (same ids).
    expect(agent.messages.slice(1)).toEqual(toAgUiMessages([reply]));
    expect(result.newMessages).toHaveLength(4);
    expect(served.runs).toEqual(['billing']);
  });

  it('interrupts for approval and continues in the next run with the resume answer', async () => {
    const runs: string[] = [];
    served = await startServer({ agents: { ops: deployAgent(runs, { confirm: true }) } });
    const { agent, events, invalid } = agentAs('alice', served.endpoint, 'thread-2');
    agent.addMessage(userText('u1', 'Deploy billing.'));
    await agent.runAgent();
    const paused = events.at(-1) as RunFinishedEvent;
    expect(paused.outcome).toMatchObject({
      type: 'interrupt',
      interrupts: [
        expect.objectContaining({
          id: 'call_deploy',
          reason: 'tool_call',
          toolCallId: 'call_deploy',
          responseSchema: expect.objectContaining({ required: ['approved'] }),
        }),
      ],
    });
    expect(agent.pendingInterrupts.map((i) => i.id)).toEqual(['call_deploy']);
    expect(runs).toEqual([]);

    await agent.runAgent({
      resume: [
        {
          interruptId: 'call_deploy',
          status: 'resolved',
          payload: { approved: true, editedArgs: { service: 'search' } },
        },
      ],
    });
    expect(invalid).toEqual([]);
    expect(runs).toEqual(['search']);
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'success' } });
    expect(agent.pendingInterrupts).toEqual([]);
    const tool = agent.messages.find((m) => m.role === 'tool');
    expect(tool).toMatchObject({ toolCallId: 'call_deploy', content: 'deployed search' });
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'Billing is deployed.' });
    const stored = await served.store.getSession('alice', 'ops', 'thread-2');
    expect(stored!.state.context.at(-1)!.finishedReason).toBe('completed');
  });

  it('denies a cancelled interrupt: the tool never runs', async () => {
    const runs: string[] = [];
    served = await startServer({ agents: { ops: deployAgent(runs, { confirm: true }) } });
    const { agent, events } = agentAs('alice', served.endpoint, 'thread-3');
    agent.addMessage(userText('u1', 'Deploy billing.'));
    await agent.runAgent();
    await agent.runAgent({ resume: [{ interruptId: 'call_deploy', status: 'cancelled' }] });
    expect(runs).toEqual([]);
    const result = events.find((e) => e.type === EventType.TOOL_CALL_RESULT);
    expect(result).toMatchObject({ toolCallId: 'call_deploy', metadata: { agentkit: { state: 'denied' } } });
  });

  it('leaves frontend tools to the client: success with pendingToolCallIds, the tool message resumes the reply', async () => {
    const getLocation = defineTool({
      name: 'getLocation',
      description: "The user's city",
      inputSchema: { type: 'object', properties: {} },
      external: true,
    });
    const model = new ScriptedModel([
      [toolCallChunk('getLocation', {}, 'call_loc')],
      (request) =>
        textChunks(JSON.stringify(request.messages.at(-1)).includes('Berlin') ? 'You are in Berlin.' : '?'),
    ]);
    served = await startServer({
      agents: { ops: ({ state }) => new Agent({ name: 'ops', model, tools: [getLocation], state }) },
    });
    const { agent, events, invalid } = agentAs('alice', served.endpoint, 'thread-4');
    agent.addMessage(userText('u1', 'Where am I?'));
    await agent.runAgent();
    expect(events.at(-1)).toMatchObject({
      type: EventType.RUN_FINISHED,
      outcome: { type: 'success', pendingToolCallIds: ['call_loc'] },
    });
    agent.addMessage({ id: 't1', role: 'tool', toolCallId: 'call_loc', content: 'Berlin' });
    await agent.runAgent();
    expect(invalid).toEqual([]);
    expect(agent.messages.at(-1)).toMatchObject({ role: 'assistant', content: 'You are in Berlin.' });
    const stored = await served.store.getSession('alice', 'ops', 'thread-4');
    expect(stored!.state.context.at(-1)!.content.find((b) => b.type === 'tool_result')).toMatchObject({
      state: 'success',
      output: [expect.objectContaining({ text: 'Berlin' })],
    });
  });

  it('maps an interrupted reply to RUN_FINISHED cancelled', async () => {
    served = await startServer({ agents: { ops: deployAgent([], { delayMs: 5_000 }) } });
    const { agent, events, invalid } = agentAs('alice', served.endpoint, 'thread-5');
    agent.addMessage(userText('u1', 'Deploy billing.'));
    const running = agent.runAgent();
    await waitFor(() => events.some((e) => e.type === EventType.TOOL_CALL_END), 5_000, 'the tool call');
    const interrupted = await fetch(`${served.url}/agents/ops/sessions/thread-5/interrupt`, {
      method: 'POST',
      headers: { Authorization: 'Bearer alice' },
    });
    expect(interrupted.status).toBe(202);
    await running;
    expect(invalid).toEqual([]);
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'cancelled' } });
    expect(events.find((e) => e.type === EventType.TOOL_CALL_RESULT)).toMatchObject({
      metadata: { agentkit: { state: 'interrupted' } },
    });
  });

  it('maps a failed reply to RUN_ERROR', async () => {
    served = await startServer({
      agents: {
        ops: deployAgent([], {
          script: [{ error: new ModelError('rate_limit', 'The rate limit was hit.', { retryable: false }) }],
        }),
      },
    });
    const { agent, events, invalid } = agentAs('alice', served.endpoint, 'thread-6');
    agent.addMessage(userText('u1', 'Hi'));
    vi.spyOn(console, 'error').mockImplementation(() => {});
    await agent.runAgent().catch(() => {});
    expect(invalid).toEqual([]);
    expect(events.at(-1)).toEqual({
      type: EventType.RUN_ERROR,
      message: 'The rate limit was hit.',
      code: 'rate_limit',
    });
  });

  it('ends a run whose input leaves an interrupt open with RUN_ERROR, and refuses bad bodies with 400', async () => {
    served = await startServer({ agents: { ops: deployAgent([], { confirm: true }) } });
    const { agent } = agentAs('alice', served.endpoint, 'thread-7');
    agent.addMessage(userText('u1', 'Deploy billing.'));
    await agent.runAgent();
    const post = (body: unknown) =>
      fetch(served!.endpoint, {
        method: 'POST',
        headers: {
          Authorization: 'Bearer alice',
          'Content-Type': 'application/json',
          Accept: 'text/event-stream',
        },
        body: JSON.stringify(body),
      });
    const base = {
      threadId: 'thread-7',
      runId: 'run-x',
      messages: [userText('u2', 'Something else.')],
      tools: [],
      context: [],
    };
    for (const body of [
      base,
      { ...base, resume: [{ interruptId: 'nope', status: 'resolved', payload: { approved: true } }] },
      { ...base, resume: [{ interruptId: 'call_deploy', status: 'resolved', payload: {} }] },
    ]) {
      const response = await post(body);
      expect(response.status).toBe(200);
      const events = (await readSse<AGUIEvent>(response)).messages.map((m) => m.event);
      for (const e of events) expect(EventSchema.safeParse(e).success).toBe(true);
      expect(events.map((e) => e.type)).toEqual([EventType.RUN_STARTED, EventType.RUN_ERROR]);
      expect(events[1]).toMatchObject({ code: 'INVALID_INPUT' });
    }
    for (const body of [
      { threadId: 'x' },
      { ...base, threadId: '../x' },
      { ...base, threadId: '..' },
      { ...base, messages: 'nope' },
    ]) {
      const response = await post(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'INVALID_INPUT' });
    }
  });

  it('continues a reply whose process stopped: MESSAGES_SNAPSHOT of the whole thread, then the rest', async () => {
    const runs: string[] = [];
    served = await startServer({
      agents: {
        ops: deployAgent(runs, {
          script: [[toolCallChunk('deploy', { service: 'search' }, 'c9')], textChunks('Done.')],
        }),
      },
    });
    await served.store.upsertSession('alice', 'ops', 'thread-8', { state: await crashedState() });
    const { agent, events, invalid } = agentAs('alice', served.endpoint, 'thread-8');
    await agent.runAgent();
    expect(invalid).toEqual([]);
    expect(events[1]).toMatchObject({ type: EventType.MESSAGES_SNAPSHOT });
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'success' } });
    const stored = await served.store.getSession('alice', 'ops', 'thread-8');
    // The client now holds the thread as saved: the user's message, then the reply.
    expect(agent.messages).toEqual(toAgUiMessages(stored!.state.context));
    expect(agent.messages[0]).toMatchObject({ role: 'user', content: 'Deploy.' });
    expect(JSON.stringify(agent.messages)).toMatch(/may or may not have taken effect/);
  });

  it('finishes the new reply, not the unfinished one it replaces', async () => {
    const runs: string[] = [];
    served = await startServer({ agents: { ops: deployAgent(runs, { confirm: true }) } });
    await served.store.upsertSession('alice', 'ops', 'thread-9', { state: await crashedState() });
    const { agent, events, invalid } = agentAs('alice', served.endpoint, 'thread-9');
    agent.addMessage(userText('u2', 'Deploy billing.'));
    await agent.runAgent();
    expect(invalid).toEqual([]);
    // The old reply closed as interrupted; the new one pauses for approval.
    expect(events.at(-1)).toMatchObject({
      type: EventType.RUN_FINISHED,
      outcome: { type: 'interrupt', interrupts: [expect.objectContaining({ toolCallId: 'call_deploy' })] },
    });
    const stored = await served.store.getSession('alice', 'ops', 'thread-9');
    expect(stored!.state.context.at(-3)!.finishedReason).toBe('interrupted');
  });
});
