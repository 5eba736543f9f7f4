import { Agent, type AgentState, defineTool, getText, ModelError, replayEvents } from '@agentkit/core';
import { ScriptedModel, textChunks, toolCallChunk } from '@agentkit/core/testing';
import { agentEvents, readSse } from '@agentkit/server/testing';
import {
  lastAssistantMessageIsCompleteWithApprovalResponses,
  lastAssistantMessageIsCompleteWithToolCalls,
  readUIMessageStream,
  type UIMessage,
} from 'ai';
import { afterEach, describe, expect, it } from 'vitest';
import { crashedState, deployAgent, waitFor } from '@agentkit/test-fixtures';
import { chatAs, startServer } from '../../test/helpers';

type Served = Awaited<ReturnType<typeof startServer>>;
let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

const withoutSteps = (m: UIMessage | undefined) => m?.parts.filter((p) => p.type !== 'step-start');

describe('POST /agents/:agentId/chat with the AI SDK chat client', () => {
  it('streams the reply; the chat rebuilds the text, the reasoning and the tool call with input and output', async () => {
    served = await startServer();
    const { chat, recorded } = chatAs('alice', served.api, { id: 'chat-1' });
    await chat.sendMessage({ text: 'Deploy billing.' });
    await recorded.settled();
    expect(chat.status).toBe('ready');
    expect(chat.error).toBeUndefined();
    expect(recorded.invalid).toEqual([]);
    expect(recorded.chunks.length).toBeGreaterThan(10);

    const stored = await served.store.getSession('alice', 'ops', 'chat-1');
    const reply = stored!.state.context.at(-1)!;
    expect(chat.messages).toHaveLength(2);
    const [user, assistant] = chat.messages;
    expect(user!.parts).toEqual([{ type: 'text', text: 'Deploy billing.' }]);
    expect(assistant!.id).toBe(reply.id);
    expect(withoutSteps(assistant)).toEqual([
      expect.objectContaining({ type: 'reasoning', text: 'The user wants billing deployed.' }),
      expect.objectContaining({ type: 'text', text: 'Deploying billing now.' }),
      expect.objectContaining({
        type: 'tool-deploy',
        toolCallId: 'call_deploy',
        state: 'output-available',
        input: { service: 'billing' },
        output: 'deployed billing',
      }),
      expect.objectContaining({ type: 'text', text: 'Billing is deployed.' }),
    ]);
    expect(assistant!.metadata).toMatchObject({ usage: reply.usage, finishedReason: 'completed' });
    expect(getText(reply, '')).toBe('Deploying billing now.Billing is deployed.');
    expect(served.runs).toEqual(['billing']);
    // The session holds the user's message as agentkit saw it.
    expect(getText(stored!.state.context.at(-2)!)).toBe('Deploy billing.');
  });

  it('asks for approval and resumes the paused reply with the answer the chat sends back', async () => {
    const runs: string[] = [];
    served = await startServer({ agents: { ops: deployAgent(runs, { confirm: true }) } });
    const { chat, recorded } = chatAs('alice', served.api, {
      id: 'chat-2',
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    await chat.sendMessage({ text: 'Deploy billing.' });
    const asking = chat.lastMessage!.parts.find((p) => p.type === 'tool-deploy');
    expect(asking).toMatchObject({ state: 'approval-requested', input: { service: 'billing' } });
    expect(runs).toEqual([]);
    const paused = await served.store.getSession('alice', 'ops', 'chat-2');
    expect(paused!.state.context.at(-1)!.finishedReason).toBeNull();

    await chat.addToolApprovalResponse({
      id: (asking as { approval: { id: string } }).approval.id,
      approved: true,
    });
    await waitFor(
      () =>
        chat.status === 'ready' &&
        chat.lastMessage!.parts.some((p) => p.type === 'text' && p.text === 'Billing is deployed.'),
      10_000,
      'the resumed reply',
    );
    await recorded.settled();
    expect(recorded.invalid).toEqual([]);
    expect(runs).toEqual(['billing']);
    // One assistant message, continued in place: the approval, then the output and the final text.
    expect(chat.messages).toHaveLength(2);
    expect(withoutSteps(chat.lastMessage)).toEqual([
      expect.objectContaining({ type: 'reasoning' }),
      expect.objectContaining({ type: 'text', text: 'Deploying billing now.' }),
      expect.objectContaining({
        type: 'tool-deploy',
        state: 'output-available',
        output: 'deployed billing',
        approval: expect.objectContaining({ id: 'call_deploy', approved: true }),
      }),
      expect.objectContaining({ type: 'text', text: 'Billing is deployed.' }),
    ]);
    const stored = await served.store.getSession('alice', 'ops', 'chat-2');
    const reply = stored!.state.context.at(-1)!;
    expect(reply.id).toBe(chat.lastMessage!.id);
    expect(reply.finishedReason).toBe('completed');
    // The metadata carries the usage of the whole reply, both runs.
    expect(chat.lastMessage!.metadata).toMatchObject({ usage: reply.usage, finishedReason: 'completed' });
  });

  it('denies the call when the user refuses: the tool never runs and the part shows the denial', async () => {
    const runs: string[] = [];
    served = await startServer({
      agents: { ops: deployAgent(runs, { confirm: true }) },
    });
    const { chat } = chatAs('alice', served.api, {
      id: 'chat-3',
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    await chat.sendMessage({ text: 'Deploy billing.' });
    await chat.addToolApprovalResponse({ id: 'call_deploy', approved: false });
    await waitFor(
      () =>
        chat.status === 'ready' &&
        chat.lastMessage!.parts.some((p) => p.type === 'tool-deploy' && p.state === 'output-denied'),
      10_000,
      'the denial',
    );
    expect(runs).toEqual([]);
    const stored = await served.store.getSession('alice', 'ops', 'chat-3');
    const result = stored!.state.context.at(-1)!.content.find((b) => b.type === 'tool_result');
    expect(result).toMatchObject({ id: 'call_deploy', state: 'denied' });
  });

  it('runs a tool on the client: the output addToolOutput sends back resumes the reply', async () => {
    const model = new ScriptedModel([
      [toolCallChunk('getLocation', {}, 'call_loc')],
      (request) => {
        const last = JSON.stringify(request.messages.at(-1));
        return textChunks(last.includes('Berlin') ? 'You are in Berlin.' : 'No idea.');
      },
    ]);
    const getLocation = defineTool({
      name: 'getLocation',
      description: "The user's city (asked in the browser)",
      inputSchema: { type: 'object', properties: {} },
      external: true,
    });
    served = await startServer({
      agents: {
        ops: ({ state }: { state: AgentState }) =>
          new Agent({ name: 'ops', model, tools: [getLocation], state }),
      },
    });
    const holder: { chat?: ReturnType<typeof chatAs>['chat'] } = {};
    const { chat, recorded } = chatAs('alice', served.api, {
      id: 'chat-ext',
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithToolCalls,
      onToolCall: ({ toolCall }) => {
        if (toolCall.toolName === 'getLocation')
          void holder.chat!.addToolOutput({
            tool: 'getLocation',
            toolCallId: toolCall.toolCallId,
            output: 'Berlin',
          });
      },
    });
    holder.chat = chat;
    await chat.sendMessage({ text: 'Where am I?' });
    await waitFor(
      () =>
        chat.status === 'ready' &&
        chat.lastMessage!.parts.some((p) => p.type === 'text' && p.text === 'You are in Berlin.'),
      10_000,
      'the reply after the client-side tool',
    );
    await recorded.settled();
    expect(recorded.invalid).toEqual([]);
    expect(chat.messages).toHaveLength(2);
    expect(chat.lastMessage!.parts.find((p) => p.type === 'tool-getLocation')).toMatchObject({
      state: 'output-available',
      output: 'Berlin',
    });
    const stored = await served.store.getSession('alice', 'ops', 'chat-ext');
    const reply = stored!.state.context.at(-1)!;
    expect(reply.finishedReason).toBe('completed');
    expect(reply.content.find((b) => b.type === 'tool_result')).toMatchObject({
      id: 'call_loc',
      state: 'success',
      output: [expect.objectContaining({ text: 'Berlin' })],
    });
  });

  it('keeps sessions per chat id and per user, and continues the conversation in later requests', async () => {
    served = await startServer({
      agents: {
        ops: deployAgent([], { script: [textChunks('First answer.'), textChunks('Second answer.')] }),
      },
    });
    const alice = chatAs('alice', served.api, { id: 'shared-id' });
    await alice.chat.sendMessage({ text: 'One' });
    await alice.chat.sendMessage({ text: 'Two' });
    expect(alice.chat.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    const stored = await served.store.getSession('alice', 'ops', 'shared-id');
    expect(stored!.state.context.map((m) => getText(m))).toEqual([
      'One',
      'First answer.',
      'Two',
      'Second answer.',
    ]);
    expect(await served.store.getSession('bob', 'ops', 'shared-id')).toBeNull();
  });

  it('maps an interrupted reply to abort and finish interrupted', async () => {
    served = await startServer({ agents: { ops: deployAgent([], { delayMs: 5_000 }) } });
    const { transport, recorded } = chatAs('alice', served.api);
    const stream = await transport.sendMessages({
      trigger: 'submit-message',
      chatId: 'chat-4',
      messageId: undefined,
      messages: [{ id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Deploy billing.' }] }],
      abortSignal: undefined,
    });
    const reading = (async () => {
      let message: UIMessage | undefined;
      for await (const m of readUIMessageStream({ stream })) message = m;
      return message!;
    })();
    await waitFor(
      () => recorded.chunks.some((c) => c.type === 'tool-input-available'),
      5_000,
      'the tool call',
    );
    const interrupted = await fetch(`${served.url}/agents/ops/sessions/chat-4/interrupt`, {
      method: 'POST',
      headers: { Authorization: 'Bearer alice' },
    });
    expect(interrupted.status).toBe(202);
    const message = await reading;
    await recorded.settled();
    expect(recorded.invalid).toEqual([]);
    expect(recorded.chunks.slice(-2)).toEqual([
      { type: 'abort', reason: 'The reply was interrupted.' },
      expect.objectContaining({ type: 'finish', finishReason: 'interrupted' }),
    ]);
    expect(message.parts.find((p) => p.type === 'tool-deploy')).toMatchObject({ state: 'output-error' });
    expect(message.metadata).toMatchObject({ finishedReason: 'interrupted' });
  });

  it('maps a failed reply to an error chunk; the chat ends in its error state', async () => {
    served = await startServer({
      agents: {
        ops: deployAgent([], {
          script: [
            {
              error: new ModelError('rate_limit', 'The model provider’s rate limit was hit.', {
                retryable: false,
              }),
            },
          ],
        }),
      },
    });
    const { chat, recorded } = chatAs('alice', served.api, { id: 'chat-5' });
    await chat.sendMessage({ text: 'Hi' });
    await recorded.settled();
    expect(recorded.invalid).toEqual([]);
    expect(recorded.chunks).toContainEqual({
      type: 'error',
      errorText: 'The model provider’s rate limit was hit.',
    });
    expect(recorded.chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'error' });
    expect(chat.status).toBe('error');
    expect(chat.error?.message).toBe('The model provider’s rate limit was hit.');
  });

  it('answers 400 to bad requests and 409 to a new message while the reply waits for approval', async () => {
    served = await startServer({ agents: { ops: deployAgent([], { confirm: true }) } });
    const post = (body: unknown) =>
      fetch(served!.api, {
        method: 'POST',
        headers: { Authorization: 'Bearer alice', 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      });
    const user = (text: string) => ({ id: 'u', role: 'user', parts: [{ type: 'text', text }] });
    for (const body of [
      { id: 'x', messages: [] },
      { id: '../etc', messages: [user('hi')] },
      { id: '..', messages: [user('hi')] },
      { id: 'x', messages: [{ id: 'u', role: 'user', parts: 'nope' }] },
      { id: 'x', messages: [user('hi')], trigger: 'regenerate-message' },
      { id: 'x', messages: [{ id: 'u', role: 'user', parts: [{ type: 'data-x', data: 1 }] }] },
      { id: 'x', messages: [{ id: 'a', role: 'assistant', parts: [{ type: 'text', text: 'hello' }] }] },
    ]) {
      const response = await post(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(await response.json()).toMatchObject({ code: 'INVALID_INPUT' });
    }
    const { chat } = chatAs('alice', served.api, { id: 'chat-6' });
    await chat.sendMessage({ text: 'Deploy.' });
    const refused = await post({ id: 'chat-6', messages: [user('something else')] });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ code: 'REPLY_PAUSED' });
    const unauthenticated = await fetch(served.api, {
      method: 'POST',
      body: JSON.stringify({ id: 'x', messages: [user('hi')] }),
    });
    expect(unauthenticated.status).toBe(401);
  });
});

describe('a reply whose process stopped', () => {
  it('continues when the chat sends its assistant message back: the checkpoint replayed, then the rest', async () => {
    const runs: string[] = [];
    served = await startServer({
      agents: {
        ops: deployAgent(runs, {
          script: [[toolCallChunk('deploy', { service: 'search' }, 'c9')], textChunks('Done.')],
        }),
      },
    });
    const crash = await crashedState();
    await served.store.upsertSession('alice', 'ops', 'chat-9', { state: crash });
    const replyId = crash.reply!.id;
    const { transport, recorded } = chatAs('alice', served.api);
    const stream = await transport.sendMessages({
      trigger: 'submit-message',
      chatId: 'chat-9',
      messageId: replyId,
      messages: [
        { id: 'u1', role: 'user', parts: [{ type: 'text', text: 'Deploy.' }] },
        { id: replyId, role: 'assistant', parts: [] },
      ],
      abortSignal: undefined,
    });
    let message: UIMessage | undefined;
    for await (const m of readUIMessageStream({ stream })) message = m;
    await recorded.settled();
    expect(recorded.invalid).toEqual([]);
    expect(message!.id).toBe(replyId);
    const stored = await served.store.getSession('alice', 'ops', 'chat-9');
    const reply = stored!.state.context.at(-1)!;
    expect(reply.finishedReason).toBe('completed');
    expect(withoutSteps(message)).toEqual([
      expect.objectContaining({ type: 'text', text: 'On it.' }),
      expect.objectContaining({ type: 'tool-deploy', toolCallId: 'c1', state: 'output-error' }),
      expect.objectContaining({
        type: 'tool-deploy',
        toolCallId: 'c9',
        state: 'output-available',
        output: 'deployed search',
      }),
      expect.objectContaining({ type: 'text', text: 'Done.' }),
    ]);
    expect((withoutSteps(message)![1] as { errorText: string }).errorText).toMatch(
      /may or may not have taken effect/,
    );
    expect(runs).toEqual(['search']);
  });

  it('shows only the new reply when a new message replaces the unfinished one', async () => {
    served = await startServer({
      agents: { ops: deployAgent([], { script: [textChunks('Fresh answer.')] }) },
    });
    const crash = await crashedState();
    await served.store.upsertSession('alice', 'ops', 'chat-10', { state: crash });
    const { chat, recorded } = chatAs('alice', served.api, { id: 'chat-10' });
    await chat.sendMessage({ text: 'Never mind, say hi.' });
    await recorded.settled();
    expect(chat.status).toBe('ready');
    expect(recorded.invalid).toEqual([]);
    const stored = await served.store.getSession('alice', 'ops', 'chat-10');
    const [old, , fresh] = stored!.state.context.slice(-3);
    expect(old!.finishedReason).toBe('interrupted'); // the unfinished reply was closed first
    expect(chat.lastMessage!.id).toBe(fresh!.id);
    expect(withoutSteps(chat.lastMessage)).toEqual([
      expect.objectContaining({ type: 'text', text: 'Fresh answer.' }),
    ]);
    expect(recorded.chunks.filter((c) => c.type === 'start')).toEqual([
      { type: 'start', messageId: fresh!.id },
    ]);
  });
});

describe('GET /agents/:agentId/chat/:sessionId/stream (resume)', () => {
  it('answers 204 when no reply runs', async () => {
    served = await startServer();
    const { transport } = chatAs('alice', served.api);
    expect(await transport.reconnectToStream({ chatId: 'nothing-here' })).toBeNull();
  });

  it('replays the running reply from its start and follows it live; the chat rebuilds the whole message', async () => {
    const runs: string[] = [];
    served = await startServer({ agents: { ops: deployAgent(runs, { delayMs: 1_500 }) } });
    const first = chatAs('alice', served.api, { id: 'chat-7' });
    const sending = first.chat.sendMessage({ text: 'Deploy billing.' });
    await waitFor(
      () => first.recorded.chunks.some((c) => c.type === 'tool-input-available'),
      5_000,
      'the tool call',
    );
    // Another tab opens the chat while the tool runs.
    const second = chatAs('alice', served.api, { id: 'chat-7', messages: [first.chat.messages[0]!] });
    await second.chat.resumeStream();
    await sending;
    await second.recorded.settled();
    expect(second.recorded.invalid).toEqual([]);
    expect(second.chat.messages).toHaveLength(2);
    expect(second.chat.lastMessage).toEqual(first.chat.lastMessage);
    expect(withoutSteps(second.chat.lastMessage)!.map((p) => p.type)).toEqual([
      'reasoning',
      'text',
      'tool-deploy',
      'text',
    ]);
    expect(runs).toEqual(['billing']);
  });
});

describe('the log the chat route streams from', () => {
  it('reduces to the stored message (the chunks come from the same events)', async () => {
    served = await startServer();
    const { chat } = chatAs('alice', served.api, { id: 'chat-8' });
    await chat.sendMessage({ text: 'Deploy billing.' });
    const events = await fetch(`${served.url}/agents/ops/sessions/chat-8/events`, {
      headers: { Authorization: 'Bearer alice' },
    });
    const { messages } = await readSse(events);
    const stored = await served.store.getSession('alice', 'ops', 'chat-8');
    expect(replayEvents(agentEvents(messages))).toEqual(stored!.state.context.at(-1));
  });
});
