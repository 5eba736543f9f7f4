import { ModelError, assistantMsg, userMsg } from '@agentkit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { collect, collectError, joined, modelRequest, toolCalls } from './__fixtures__/helpers';
import { type OpenAITestServer, responsesSse, startOpenAIServer } from './__fixtures__/openai-server';
import events from './__fixtures__/responses-reasoning-tool-call.json';
import { createOpenAIModel } from './openai-model';

let server: OpenAITestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const weather = {
  name: 'get_weather',
  description: 'Weather of a city',
  inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
};
const encrypted = 'gAAAAABoofDE3kq9xZ_Yv1Lr0Wm8Tt5QhN2pJ7sB4cK6gD1fV9eR3uY0iO8pA2sD5fG7hJ1kL3zX5cV7bN9mQ==';

describe('Responses API streaming', () => {
  it('streams reasoning summary, text, a function call and usage', async () => {
    server = await startOpenAIServer([{ stream: responsesSse(events) }]);
    const model = createOpenAIModel({
      model: 'o4-mini',
      api: 'responses',
      apiKey: 'sk-test',
      baseURL: server.baseURL,
      reasoning: { effort: 'medium', summary: 'auto' },
    });
    const chunks = await collect(
      model,
      modelRequest({ tools: [weather], toolChoice: { name: 'get_weather' } }),
    );

    expect(joined(chunks, 'thinking')).toBe(
      '**Checking the weather**\n\nThe user wants Paris weather; I should call the tool.',
    );
    // The finished reasoning item (with its complete encrypted content) is kept for later turns.
    const reasoningDone = chunks.find((c) => c.type === 'thinking' && c.providerData);
    expect(reasoningDone).toEqual({
      type: 'thinking',
      delta: '',
      providerData: {
        openai: {
          reasoningItem: {
            id: 'rs_68a1f0c3a1b4819c8e2f6d7c5b4a39280f1e2d3c4b5a6978',
            summary: [
              {
                type: 'summary_text',
                text: '**Checking the weather**\n\nThe user wants Paris weather; I should call the tool.',
              },
            ],
            encryptedContent: encrypted,
          },
        },
      },
    });
    expect(joined(chunks, 'text')).toBe('Let me check the weather in Paris.');
    expect(toolCalls(chunks)).toEqual({
      call_Wm4kT8pLx2QzR7vN3bYc9sDf: { name: 'get_weather', input: '{"city":"Paris"}' },
    });
    expect(chunks.at(-1)).toEqual({
      type: 'usage',
      usage: {
        inputTokens: 2150,
        outputTokens: 212,
        cacheInputTokens: 1920,
        cacheCreationInputTokens: 0,
        reasoningTokens: 128,
      },
    });

    const { path, body } = server.requests[0]!;
    expect(path).toBe('/v1/responses');
    expect(body).toMatchObject({
      model: 'o4-mini',
      stream: true,
      store: false,
      include: ['reasoning.encrypted_content'],
      instructions: 'You are helpful.',
      input: [{ role: 'user', content: 'Hi' }],
      reasoning: { effort: 'medium', summary: 'auto' },
      tool_choice: { type: 'function', name: 'get_weather' },
      tools: [
        {
          type: 'function',
          name: 'get_weather',
          description: 'Weather of a city',
          parameters: weather.inputSchema,
          strict: false,
        },
      ],
    });
  });

  it('sends the earlier turn back: encrypted reasoning without ids, assistant text, the call and its output', async () => {
    server = await startOpenAIServer([{ stream: responsesSse(events) }]);
    const model = createOpenAIModel({
      model: 'o4-mini',
      api: 'responses',
      apiKey: 'sk-test',
      baseURL: server.baseURL,
    });
    const reply = assistantMsg([
      {
        type: 'thinking',
        id: 't1',
        thinking: 'Checking',
        providerData: {
          openai: {
            reasoningItem: {
              id: 'rs_1',
              summary: [{ type: 'summary_text', text: 'Checking' }],
              encryptedContent: encrypted,
            },
          },
        },
      },
      { type: 'thinking', id: 't2', thinking: 'from another provider' },
      { type: 'text', id: 'x1', text: 'Let me check.', providerData: { openai: { itemId: 'msg_1' } } },
      {
        type: 'tool_call',
        id: 'call_1',
        name: 'get_weather',
        input: '{"city":"Paris"}',
        state: 'finished',
        providerData: { openai: { itemId: 'fc_1' } },
      },
      {
        type: 'tool_result',
        id: 'call_1',
        name: 'get_weather',
        output: [{ type: 'text', id: 'r1', text: '18°C, sunny' }],
        state: 'success',
        metadata: {},
      },
      {
        type: 'hint',
        id: 'h1',
        hint: 'Remember: be brief.',
        source: 'test',
        createdAt: new Date().toISOString(),
      },
    ]);
    await collect(model, modelRequest({ messages: [userMsg('Weather in Paris?'), reply], tools: [weather] }));
    expect(server.requests[0]!.body.input).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      {
        type: 'reasoning',
        summary: [{ type: 'summary_text', text: 'Checking' }],
        encrypted_content: encrypted,
      },
      { role: 'assistant', content: 'Let me check.' },
      { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_1', output: '18°C, sunny' },
      { role: 'user', content: 'Remember: be brief.' },
    ]);
  });

  it('with store: true, items keep their ids (two output messages stay two items)', async () => {
    server = await startOpenAIServer([{ stream: responsesSse(events) }]);
    const model = createOpenAIModel({
      model: 'gpt-4.1',
      api: 'responses',
      apiKey: 'sk-test',
      baseURL: server.baseURL,
      store: true,
    });
    const reply = assistantMsg([
      {
        type: 'thinking',
        id: 't1',
        thinking: '',
        providerData: { openai: { reasoningItem: { id: 'rs_1', summary: [], encryptedContent: null } } },
      },
      { type: 'text', id: 'x1', text: 'Hi!', providerData: { openai: { itemId: 'msg_1' } } },
      { type: 'text', id: 'x2', text: 'Bye!', providerData: { openai: { itemId: 'msg_2' } } },
    ]);
    await collect(model, modelRequest({ messages: [userMsg('Hi'), reply, userMsg('Again')] }));
    const { body } = server.requests[0]!;
    expect(body.store).toBe(true);
    expect(body.include).toBeUndefined();
    expect(body.input).toEqual([
      { role: 'user', content: 'Hi' },
      { type: 'reasoning', id: 'rs_1', summary: [] },
      {
        type: 'message',
        role: 'assistant',
        id: 'msg_1',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Hi!', annotations: [] }],
      },
      {
        type: 'message',
        role: 'assistant',
        id: 'msg_2',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Bye!', annotations: [] }],
      },
      { role: 'user', content: 'Again' },
    ]);
  });

  it('keeps two function calls with one call_id apart (chunks are keyed by id: they would merge)', async () => {
    const call = (itemId: string, args: string) => [
      {
        type: 'response.output_item.added',
        output_index: 0,
        item: { type: 'function_call', id: itemId, call_id: 'call_dup', name: 'get_weather', arguments: '' },
      },
      { type: 'response.function_call_arguments.delta', item_id: itemId, output_index: 0, delta: args },
      {
        type: 'response.output_item.done',
        output_index: 0,
        item: {
          type: 'function_call',
          id: itemId,
          call_id: 'call_dup',
          name: 'get_weather',
          arguments: args,
        },
      },
    ];
    const stream = [
      ...call('fc_1', '{"city":"Oslo"}'),
      ...call('fc_2', '{"city":"Rome"}'),
      { type: 'response.completed', response: { ...events[0]!.response, status: 'completed' } },
    ] as Array<{ type: string }>;
    server = await startOpenAIServer([{ stream: responsesSse(stream) }]);
    const model = createOpenAIModel({
      model: 'gpt-4.1',
      api: 'responses',
      apiKey: 'sk-test',
      baseURL: server.baseURL,
    });
    const calls = toolCalls(await collect(model, modelRequest()));
    expect(calls).toEqual({
      call_dup: { name: 'get_weather', input: '{"city":"Oslo"}' },
      call_dup_2: { name: 'get_weather', input: '{"city":"Rome"}' },
    });
  });

  it("response.failed with a huge or non-text message: the ModelError's message stays short and typed", async () => {
    for (const error of [
      { code: 'server_error', message: `sk-test-${'y'.repeat(200_000)}` },
      { code: { nested: true }, message: { text: 'not a string' } },
    ]) {
      server = await startOpenAIServer([
        {
          stream: responsesSse([
            { type: 'response.failed', response: { ...events[0]!.response, error } } as { type: string },
          ]),
        },
      ]);
      const model = createOpenAIModel({
        model: 'gpt-4.1',
        api: 'responses',
        apiKey: 'sk-test',
        baseURL: server.baseURL,
      });
      const { error: thrown } = await collectError(model, modelRequest());
      expect(thrown).toBeInstanceOf(ModelError);
      expect((thrown as ModelError).errorType).toBe('upstream');
      expect((thrown as ModelError).message.length).toBeLessThan(600);
      expect((thrown as ModelError).message).toMatch(/^The model provider failed\./);
      await server.close();
      server = undefined;
    }
  });

  it('response.failed → a classified ModelError after the partial text', async () => {
    const failing = [
      ...events.slice(0, 2),
      {
        type: 'response.output_text.delta',
        item_id: 'msg_x',
        output_index: 0,
        content_index: 0,
        delta: 'Partial',
        logprobs: [],
        sequence_number: 2,
      },
      {
        type: 'response.failed',
        sequence_number: 3,
        response: {
          ...events[0]!.response,
          status: 'failed',
          error: { code: 'rate_limit_exceeded', message: 'Too many tokens, slow down.' },
        },
      },
    ];
    server = await startOpenAIServer([{ stream: responsesSse(failing) }]);
    const model = createOpenAIModel({
      model: 'gpt-4.1',
      api: 'responses',
      apiKey: 'sk-test',
      baseURL: server.baseURL,
    });
    const { chunks, error } = await collectError(model, modelRequest());
    expect(joined(chunks, 'text')).toBe('Partial');
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).errorType).toBe('rate_limit');
    expect((error as ModelError).message).toContain('rate_limit_exceeded');
  });

  it('an error event → a classified ModelError', async () => {
    const failing = [
      ...responsesSse(events.slice(0, 2)),
      `event: error\ndata: ${JSON.stringify({ type: 'error', code: 'rate_limit_exceeded', message: 'Slow down.', param: null, sequence_number: 2 })}\n\n`,
    ];
    server = await startOpenAIServer([{ stream: failing }]);
    const model = createOpenAIModel({
      model: 'gpt-4.1',
      api: 'responses',
      apiKey: 'sk-test',
      baseURL: server.baseURL,
    });
    const { error } = await collectError(model, modelRequest());
    expect((error as ModelError).errorType).toBe('rate_limit');
  });

  it('a response the content filter withheld entirely → invalid_request, not retried', async () => {
    const base = events[0]!.response;
    const filtered = [
      { type: 'response.created', sequence_number: 0, response: { ...base, id: 'resp_f' } },
      {
        type: 'response.incomplete',
        sequence_number: 1,
        response: {
          ...base,
          id: 'resp_f',
          status: 'incomplete',
          incomplete_details: { reason: 'content_filter' },
        },
      },
    ];
    server = await startOpenAIServer([{ stream: responsesSse(filtered) }]);
    const model = createOpenAIModel({
      model: 'gpt-4.1',
      api: 'responses',
      apiKey: 'sk-test',
      baseURL: server.baseURL,
    });
    const { chunks, error } = await collectError(model, modelRequest());
    expect(chunks).toEqual([]);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ errorType: 'invalid_request', retryable: false });
  });

  it('a stream cut off before response.completed → connection', async () => {
    server = await startOpenAIServer([{ stream: responsesSse(events.slice(0, 14)) }]);
    const model = createOpenAIModel({
      model: 'gpt-4.1',
      api: 'responses',
      apiKey: 'sk-test',
      baseURL: server.baseURL,
    });
    const { error } = await collectError(model, modelRequest());
    expect((error as ModelError).errorType).toBe('connection');
  });
});
