import { Agent, type AgentEvent, createMsg, type Msg, defineTool, getBlocks, getText } from '@agentkit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { textAnswer, toolCallAnswer } from './__fixtures__/chat-chunks';
import errors from './__fixtures__/errors.json';
import {
  type OpenAITestServer,
  chatSse,
  responsesSse,
  startOpenAIServer,
} from './__fixtures__/openai-server';
import responsesEvents from './__fixtures__/responses-reasoning-tool-call.json';
import { createOpenAIModel } from './openai-model';

let server: OpenAITestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function weatherTool(calls: unknown[] = []) {
  return defineTool({
    name: 'get_weather',
    description: 'Current weather of a city',
    inputSchema: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
      additionalProperties: false,
    },
    execute: (input: { city: string }) => {
      calls.push(input);
      return `18°C and sunny in ${input.city}`;
    },
  });
}

function agentFor(baseURL: string, extra: Partial<ConstructorParameters<typeof Agent>[0]> = {}) {
  return new Agent({
    name: 'helper',
    systemPrompt: 'You are helpful.',
    model: createOpenAIModel({ model: 'gpt-4o-mini', apiKey: 'sk-test', baseURL }),
    tools: [weatherTool()],
    modelRetry: { initialDelayMs: 1 },
    ...extra,
  });
}

type ChatMessage = {
  role: string;
  content?: unknown;
  tool_calls?: Array<{ id: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
};

describe('OpenAIModel through Agent', () => {
  it('runs the full loop: tool call → result → answer', async () => {
    server = await startOpenAIServer([
      {
        stream: chatSse(
          toolCallAnswer([{ id: 'call_w1', name: 'get_weather', arguments: '{"city":"Paris"}' }]),
        ),
      },
      { stream: chatSse(textAnswer('It is 18°C and sunny in Paris.')) },
    ]);
    const seen: unknown[] = [];
    const agent = agentFor(server.baseURL, { tools: [weatherTool(seen)] });
    const msg = await agent.reply('Weather in Paris?');

    expect(msg.finishedReason).toBe('completed');
    expect(getText(msg)).toBe('It is 18°C and sunny in Paris.');
    expect(seen).toEqual([{ city: 'Paris' }]);
    expect(msg.usage).toMatchObject({ inputTokens: 130, outputTokens: 30 });

    const second = server.requests[1]!.body.messages as ChatMessage[];
    expect(second.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(second[2]!.tool_calls).toEqual([
      { id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
    ]);
    expect(second[3]).toEqual({ role: 'tool', tool_call_id: 'call_w1', content: '18°C and sunny in Paris' });
    expect(server.requests[1]!.body.tools).toHaveLength(1);
  });

  it('retries a 429 (honouring retry-after-ms) and then succeeds', async () => {
    server = await startOpenAIServer([
      { status: 429, body: errors['429'], headers: { 'retry-after-ms': '20' } },
      { stream: chatSse(textAnswer('Hello there.')) },
    ]);
    // A long backoff that only the provider's retry-after can shorten.
    const agent = agentFor(server.baseURL, { modelRetry: { initialDelayMs: 60_000, maxRetries: 2 } });
    const started = Date.now();
    const msg = await agent.reply('Hi');
    expect(msg.finishedReason).toBe('completed');
    expect(getText(msg)).toBe('Hello there.');
    expect(server.requests).toHaveLength(2);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('a 401 ends the reply with an authentication error that does not echo the key', async () => {
    server = await startOpenAIServer([{ status: 401, body: errors['401'] }]);
    const msg = await agentFor(server.baseURL).reply('Hi');
    expect(msg.finishedReason).toBe('error');
    expect(msg.error?.type).toBe('authentication');
    expect(msg.error?.message).not.toMatch(/sk-/);
    expect(server.requests).toHaveLength(1); // not retried
  });

  it('a connection dropped mid-stream ends the reply with a connection error; the state still resumes', async () => {
    server = await startOpenAIServer([
      { stream: chatSse(textAnswer('Hello! How can I help you today?')).slice(0, 4), ending: 'destroy' },
      { stream: chatSse(textAnswer('Sure, here it is.')) },
    ]);
    const agent = agentFor(server.baseURL);
    const failed = await agent.reply('Tell me something.');
    expect(failed.finishedReason).toBe('error');
    expect(failed.error?.type).toBe('connection');
    expect(getText(failed)).toBe('Hello! How can ');

    const state = JSON.parse(JSON.stringify(agent.state));
    const resumed = agentFor(server.baseURL, { state });
    const msg = await resumed.reply('Please try again.');
    expect(msg.finishedReason).toBe('completed');
    expect(getText(msg)).toBe('Sure, here it is.');
    const messages = server.requests[1]!.body.messages as ChatMessage[];
    expect(messages[0]).toEqual({ role: 'system', content: 'You are helpful.' });
    expect(messages.at(-1)).toEqual({ role: 'user', content: 'Please try again.' });
  });

  it('abort mid-stream ends the reply interrupted with the partial text kept', async () => {
    server = await startOpenAIServer([
      { stream: chatSse(textAnswer('Hello! How can I help you today?')).slice(0, 3), ending: 'hang' },
    ]);
    const agent = agentFor(server.baseURL);
    const controller = new AbortController();
    let final: Msg | undefined;
    let text = '';
    for await (const item of agent.replyStream('Hi', { signal: controller.signal, yieldFinalMsg: true })) {
      if ('role' in item) final = item as Msg;
      else if ((item as AgentEvent).type === 'TEXT_BLOCK_DELTA') {
        text += (item as { delta: string }).delta;
        if (text === 'Hello! ') controller.abort();
      }
    }
    expect(final?.finishedReason).toBe('interrupted');
    expect(getText(final!)).toBe('Hello! ');
    await server.clientGone;
  });

  it('a malformed tool-argument string goes back to the model as a tool error result', async () => {
    const seen: unknown[] = [];
    server = await startOpenAIServer([
      {
        stream: chatSse(
          toolCallAnswer([{ id: 'call_bad', name: 'get_weather', arguments: '{"city": "Par' }]),
        ),
      },
      { stream: chatSse(textAnswer('Sorry, let me fix that.')) },
    ]);
    const agent = agentFor(server.baseURL, { tools: [weatherTool(seen)] });
    const msg = await agent.reply('Weather in Paris?');
    expect(msg.finishedReason).toBe('completed');
    expect(seen).toEqual([]);
    const [result] = getBlocks(msg, 'tool_result');
    expect(result).toMatchObject({ id: 'call_bad', state: 'error' });

    const second = server.requests[1]!.body.messages as ChatMessage[];
    const toolMessage = second.find((m) => m.role === 'tool');
    expect(toolMessage?.tool_call_id).toBe('call_bad');
    expect(String(toolMessage?.content)).toMatch(/json|invalid|parse/i);
    // The call is sent back as the model produced it.
    expect(second.find((m) => m.role === 'assistant')?.tool_calls?.[0]?.function.arguments).toBe(
      '{"city": "Par',
    );
  });
});

describe('OpenAIModel (Responses API) through Agent', () => {
  it('keeps the encrypted reasoning in state and sends it back with the call and its output', async () => {
    const id = 'resp_2';
    const answer = [
      { type: 'response.created', sequence_number: 0, response: { ...responsesEvents[0]!.response, id } },
      {
        type: 'response.output_item.added',
        sequence_number: 1,
        output_index: 0,
        item: { id: 'msg_2', type: 'message', status: 'in_progress', content: [], role: 'assistant' },
      },
      {
        type: 'response.output_text.delta',
        sequence_number: 2,
        item_id: 'msg_2',
        output_index: 0,
        content_index: 0,
        delta: 'Sunny, 18°C.',
        logprobs: [],
      },
      {
        type: 'response.completed',
        sequence_number: 3,
        response: {
          ...responsesEvents[0]!.response,
          id,
          status: 'completed',
          usage: {
            input_tokens: 2400,
            input_tokens_details: { cached_tokens: 2048 },
            output_tokens: 8,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: 2408,
          },
        },
      },
    ];
    server = await startOpenAIServer([
      { stream: responsesSse(responsesEvents) },
      { stream: responsesSse(answer) },
    ]);
    const agent = new Agent({
      name: 'helper',
      systemPrompt: 'You are helpful.',
      model: createOpenAIModel({
        model: 'o4-mini',
        api: 'responses',
        apiKey: 'sk-test',
        baseURL: server.baseURL,
      }),
      tools: [weatherTool()],
    });
    const msg = await agent.reply('Weather in Paris?');
    expect(msg.finishedReason).toBe('completed');
    expect(getText(msg, '')).toBe('Let me check the weather in Paris.Sunny, 18°C.');
    expect(msg.usage).toMatchObject({ inputTokens: 4550, cacheInputTokens: 3968, reasoningTokens: 128 });

    // Resume from JSON: the reasoning item survives serialisation.
    const state = JSON.parse(JSON.stringify(agent.state));
    expect(JSON.stringify(state)).toContain('gAAAAABoofDE3kq9');
    const input = server.requests[1]!.body.input as Array<Record<string, unknown>>;
    expect(input.map((i) => i.type ?? i.role)).toEqual([
      'user',
      'reasoning',
      'assistant',
      'function_call',
      'function_call_output',
    ]);
    expect(input[1]).toMatchObject({
      type: 'reasoning',
      encrypted_content: expect.stringMatching(/^gAAAAABoofDE3kq9.*==$/),
    });
    expect(input[1]!.id).toBeUndefined();
    expect(input[4]).toEqual({
      type: 'function_call_output',
      call_id: 'call_Wm4kT8pLx2QzR7vN3bYc9sDf',
      output: '18°C and sunny in Paris',
    });
  });

  it('keeps two reasoning items of one response as two thinking blocks and sends both back', async () => {
    const base = responsesEvents[0]!.response;
    let seq = 0;
    const reasoning = (id: string, text: string, output_index: number) => [
      {
        type: 'response.output_item.added',
        sequence_number: seq++,
        output_index,
        item: { id, type: 'reasoning', summary: [] },
      },
      {
        type: 'response.reasoning_summary_text.delta',
        sequence_number: seq++,
        item_id: id,
        output_index,
        summary_index: 0,
        delta: text,
      },
      {
        type: 'response.output_item.done',
        sequence_number: seq++,
        output_index,
        item: {
          id,
          type: 'reasoning',
          summary: [{ type: 'summary_text', text }],
          encrypted_content: `enc-${id}`,
        },
      },
    ];
    const call = { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'get_weather' };
    const first = [
      { type: 'response.created', sequence_number: seq++, response: { ...base, id: 'resp_a' } },
      ...reasoning('rs_1', 'First thought.', 0),
      ...reasoning('rs_2', 'Second thought.', 1),
      {
        type: 'response.output_item.added',
        sequence_number: seq++,
        output_index: 2,
        item: { ...call, status: 'in_progress', arguments: '' },
      },
      {
        type: 'response.output_item.done',
        sequence_number: seq++,
        output_index: 2,
        item: { ...call, status: 'completed', arguments: '{"city":"Paris"}' },
      },
      {
        type: 'response.completed',
        sequence_number: seq++,
        response: { ...base, id: 'resp_a', status: 'completed' },
      },
    ];
    const second = [
      { type: 'response.created', sequence_number: seq++, response: { ...base, id: 'resp_b' } },
      {
        type: 'response.output_text.delta',
        sequence_number: seq++,
        item_id: 'msg_b',
        output_index: 0,
        content_index: 0,
        delta: 'Sunny.',
        logprobs: [],
      },
      {
        type: 'response.completed',
        sequence_number: seq++,
        response: { ...base, id: 'resp_b', status: 'completed' },
      },
    ];
    server = await startOpenAIServer([{ stream: responsesSse(first) }, { stream: responsesSse(second) }]);
    const agent = new Agent({
      name: 'helper',
      model: createOpenAIModel({
        model: 'o4-mini',
        api: 'responses',
        apiKey: 'sk-test',
        baseURL: server.baseURL,
      }),
      tools: [weatherTool()],
    });
    const msg = await agent.reply('Weather in Paris?');
    expect(msg.finishedReason).toBe('completed');
    expect(getBlocks(msg, 'thinking').map((b) => b.thinking)).toEqual(['First thought.', 'Second thought.']);
    const input = server.requests[1]!.body.input as Array<Record<string, unknown>>;
    expect(input.map((i) => i.type ?? i.role)).toEqual([
      'user',
      'reasoning',
      'reasoning',
      'function_call',
      'function_call_output',
    ]);
    expect(input[1]).toMatchObject({ encrypted_content: 'enc-rs_1', summary: [{ text: 'First thought.' }] });
    expect(input[2]).toMatchObject({ encrypted_content: 'enc-rs_2', summary: [{ text: 'Second thought.' }] });
  });
});

describe('another agent observed in the conversation', () => {
  const bob = () =>
    createMsg({ role: 'assistant', name: 'Bob the reviewer', content: 'The plan misses a rollback step.' });

  it("Chat Completions: Bob's reply goes as a user message with his name, not as the model's own turn", async () => {
    server = await startOpenAIServer([
      { stream: chatSse(textAnswer('First plan.')) },
      { stream: chatSse(textAnswer('Adding a rollback step.')) },
    ]);
    const alice = agentFor(server.baseURL, { name: 'Alice', tools: [] });
    await alice.reply('Draft a deployment plan.');
    await alice.observe(bob());
    await alice.reply(null);
    const sent = server.requests[1]!.body.messages as Array<Record<string, unknown>>;
    expect(sent.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(sent[2]).toMatchObject({ role: 'assistant', content: 'First plan.' });
    expect(sent[3]).toEqual({
      role: 'user',
      name: 'Bob_the_reviewer',
      content: 'Bob the reviewer: The plan misses a rollback step.',
    });
  });

  it('Responses: the same, as an attributed user message', async () => {
    const answer = (id: string, text: string) => [
      { type: 'response.created', sequence_number: 0, response: { ...responsesEvents[0]!.response, id } },
      {
        type: 'response.output_item.added',
        sequence_number: 1,
        output_index: 0,
        item: { id: `msg_${id}`, type: 'message', status: 'in_progress', content: [], role: 'assistant' },
      },
      {
        type: 'response.output_text.delta',
        sequence_number: 2,
        item_id: `msg_${id}`,
        output_index: 0,
        content_index: 0,
        delta: text,
        logprobs: [],
      },
      {
        type: 'response.completed',
        sequence_number: 3,
        response: { ...responsesEvents[0]!.response, id, status: 'completed' },
      },
    ];
    server = await startOpenAIServer([
      { stream: responsesSse(answer('r1', 'First plan.')) },
      { stream: responsesSse(answer('r2', 'Adding a rollback step.')) },
    ]);
    const alice = new Agent({
      name: 'Alice',
      model: createOpenAIModel({
        model: 'gpt-4.1',
        api: 'responses',
        apiKey: 'sk-test',
        baseURL: server.baseURL,
      }),
    });
    await alice.reply('Draft a deployment plan.');
    await alice.observe(bob());
    const msg = await alice.reply(null);
    expect(getText(msg)).toBe('Adding a rollback step.');
    const input = server.requests[1]!.body.input as Array<Record<string, unknown>>;
    expect(input.map((i) => i.role)).toEqual(['user', 'assistant', 'user']);
    expect(input[2]).toEqual({ role: 'user', content: 'Bob the reviewer: The plan misses a rollback step.' });
  });
});
