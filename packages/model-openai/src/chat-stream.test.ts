import { ModelError, userMsg } from '@agentkit/core';
import { afterEach, describe, expect, it } from 'vitest';
import parallelToolCalls from './__fixtures__/chat-parallel-tool-calls.json';
import reasoningContent from './__fixtures__/chat-reasoning-content.json';
import chatText from './__fixtures__/chat-text.json';
import { collect, collectError, joined, modelRequest, toolCalls } from './__fixtures__/helpers';
import { type OpenAITestServer, chatSse, splitBytes, startOpenAIServer } from './__fixtures__/openai-server';
import { createOpenAIModel } from './openai-model';

let server: OpenAITestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const tools = [
  {
    name: 'get_weather',
    description: 'Weather of a city',
    inputSchema: { type: 'object', properties: { city: { type: 'string' } } },
  },
  {
    name: 'translate',
    description: 'Translate text',
    inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
  },
];

describe('Chat Completions streaming', () => {
  it('streams text deltas and ends with one usage chunk (cached and reasoning tokens)', async () => {
    server = await startOpenAIServer([{ stream: chatSse(chatText) }]);
    const model = createOpenAIModel({ model: 'gpt-4o-mini', apiKey: 'sk-test', baseURL: server.baseURL });
    const chunks = await collect(model, modelRequest());
    expect(joined(chunks, 'text')).toBe('Hello! How can I help you today?');
    expect(chunks.filter((c) => c.type === 'text').length).toBe(9);
    expect(chunks.at(-1)).toEqual({
      type: 'usage',
      usage: {
        inputTokens: 1234,
        outputTokens: 9,
        cacheInputTokens: 1024,
        cacheCreationInputTokens: 0,
        reasoningTokens: 0,
      },
    });
    expect(chunks.filter((c) => c.type === 'usage')).toHaveLength(1);

    const body = server.requests[0]!.body;
    expect(server.requests[0]!.path).toBe('/v1/chat/completions');
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-test');
    expect(body).toMatchObject({
      model: 'gpt-4o-mini',
      stream: true,
      stream_options: { include_usage: true },
      messages: [
        { role: 'system', content: 'You are helpful.' },
        { role: 'user', content: 'Hi' },
      ],
    });
    expect(body.tools).toBeUndefined();
    expect(body.tool_choice).toBeUndefined();
  });

  it('maps parallel tool calls whose argument bytes split inside multi-byte characters', async () => {
    const sse = chatSse(parallelToolCalls).join('');
    const bytes = Buffer.from(sse, 'utf8');
    // Cut in the middle of "é" (2 bytes) and of "日" and "本" (3 bytes each).
    const offsets = [
      bytes.indexOf(Buffer.from('é')) + 1,
      bytes.indexOf(Buffer.from('日')) + 1,
      bytes.indexOf(Buffer.from('本')) + 2,
    ];
    server = await startOpenAIServer([{ stream: splitBytes(sse, offsets) }]);
    const model = createOpenAIModel({ model: 'gpt-4.1', apiKey: 'sk-test', baseURL: server.baseURL });
    const chunks = await collect(
      model,
      modelRequest({
        tools,
        toolChoice: 'required',
        messages: [userMsg('Weather in Montréal, and translate 日本語')],
      }),
    );
    const calls = toolCalls(chunks);
    expect(Object.keys(calls)).toEqual(['call_Hq3VvY2mZkPp8WfRt1xLs0aN', 'call_Zb7uE4cJ9sKd2QmNy6TgRw3F']);
    expect(calls.call_Hq3VvY2mZkPp8WfRt1xLs0aN).toEqual({
      name: 'get_weather',
      input: '{"city": "Montréal"}',
    });
    expect(JSON.parse(calls.call_Zb7uE4cJ9sKd2QmNy6TgRw3F!.input)).toEqual({ text: '日本語', to: 'fr' });
    // Only the first chunk of a call carries its name; every chunk is keyed by the call id.
    const first = chunks.filter((c) => c.type === 'tool_call' && c.id === 'call_Hq3VvY2mZkPp8WfRt1xLs0aN');
    expect(first[0]).toMatchObject({ name: 'get_weather', delta: '' });
    expect(first.slice(1).every((c) => c.type === 'tool_call' && c.name === undefined)).toBe(true);
    expect(chunks.at(-1)).toMatchObject({ type: 'usage', usage: { inputTokens: 312, outputTokens: 58 } });

    const body = server.requests[0]!.body;
    expect(body.tool_choice).toBe('required');
    expect(body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Weather of a city',
          parameters: tools[0]!.inputSchema,
        },
      },
      {
        type: 'function',
        function: { name: 'translate', description: 'Translate text', parameters: tools[1]!.inputSchema },
      },
    ]);
  });

  it('turns reasoning_content deltas into thinking chunks, then text; DeepSeek cache hits count as cached', async () => {
    server = await startOpenAIServer([{ stream: chatSse(reasoningContent) }]);
    const model = createOpenAIModel({
      model: 'deepseek-reasoner',
      apiKey: 'sk-test',
      baseURL: server.baseURL,
    });
    const chunks = await collect(model, modelRequest());
    expect(joined(chunks, 'thinking')).toBe('The user asks for 2+2. That is 4.');
    expect(joined(chunks, 'text')).toBe('2 + 2 = **4**.');
    const lastThinking = chunks.findLastIndex((c) => c.type === 'thinking');
    const firstText = chunks.findIndex((c) => c.type === 'text');
    expect(lastThinking).toBeLessThan(firstText);
    expect(chunks[0]).toEqual({
      type: 'thinking',
      delta: 'The user',
      providerData: { openai: { field: 'reasoning_content' } },
    });
    expect(chunks.at(-1)).toEqual({
      type: 'usage',
      usage: {
        inputTokens: 20,
        outputTokens: 40,
        cacheInputTokens: 16,
        cacheCreationInputTokens: 0,
        reasoningTokens: 31,
      },
    });
  });

  it('maps a server that reuses index 0 for a second call with a new id to two calls, and makes ids when missing', async () => {
    const base = { id: 'x', object: 'chat.completion.chunk', created: 1, model: 'qwen3:8b' };
    const frames = [
      {
        ...base,
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: [
                {
                  index: 0,
                  id: 'call_a',
                  type: 'function',
                  function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
                },
              ],
            },
            finish_reason: null,
          },
        ],
      },
      {
        ...base,
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: [
                {
                  index: 0,
                  id: 'call_b',
                  type: 'function',
                  function: { name: 'get_weather', arguments: '{"city":"Rome"}' },
                },
              ],
            },
            finish_reason: null,
          },
        ],
      },
      {
        ...base,
        choices: [
          {
            index: 0,
            delta: {
              tool_calls: [{ index: 1, type: 'function', function: { name: 'translate', arguments: '{}' } }],
            },
            finish_reason: 'tool_calls',
          },
        ],
      },
    ];
    server = await startOpenAIServer([{ stream: chatSse(frames) }]);
    const model = createOpenAIModel({ model: 'qwen3:8b', baseURL: server.baseURL, apiKey: 'ollama' });
    const calls = toolCalls(await collect(model, modelRequest({ tools })));
    const ids = Object.keys(calls);
    expect(ids.slice(0, 2)).toEqual(['call_a', 'call_b']);
    expect(calls.call_b).toEqual({ name: 'get_weather', input: '{"city":"Rome"}' });
    expect(ids[2]).toMatch(/^call_/);
    expect(calls[ids[2]!]).toEqual({ name: 'translate', input: '{}' });
  });

  it('keeps two calls apart when a server gives both the same id', async () => {
    const base = { id: 'x', object: 'chat.completion.chunk', created: 1, model: 'local' };
    const call = (index: number, city: string) => ({
      index,
      id: 'call_0',
      type: 'function',
      function: { name: 'get_weather', arguments: `{"city":"${city}"}` },
    });
    const frames = [
      { ...base, choices: [{ index: 0, delta: { tool_calls: [call(0, 'Oslo')] }, finish_reason: null }] },
      {
        ...base,
        choices: [{ index: 0, delta: { tool_calls: [call(1, 'Rome')] }, finish_reason: 'tool_calls' }],
      },
    ];
    server = await startOpenAIServer([{ stream: chatSse(frames) }]);
    const model = createOpenAIModel({ model: 'local', baseURL: server.baseURL, apiKey: 'x' });
    const calls = toolCalls(await collect(model, modelRequest({ tools })));
    expect(Object.values(calls)).toEqual([
      { name: 'get_weather', input: '{"city":"Oslo"}' },
      { name: 'get_weather', input: '{"city":"Rome"}' },
    ]);
    expect(Object.keys(calls)[0]).toBe('call_0');
  });

  it('a response the content filter withheld entirely is a non-retryable invalid_request', async () => {
    const base = { id: 'x', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o-mini' };
    const frames = [
      { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] },
      { ...base, choices: [{ index: 0, delta: {}, finish_reason: 'content_filter' }] },
    ];
    server = await startOpenAIServer([{ stream: chatSse(frames) }]);
    const model = createOpenAIModel({ model: 'gpt-4o-mini', apiKey: 'sk-test', baseURL: server.baseURL });
    const { chunks, error } = await collectError(model, modelRequest());
    expect(chunks).toEqual([]);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).errorType).toBe('invalid_request');
    expect((error as ModelError).retryable).toBe(false);
    expect((error as ModelError).message).toMatch(/content filter/);
  });

  it('a response that ran out of output tokens before any content is a non-retryable invalid_request', async () => {
    const base = { id: 'x', object: 'chat.completion.chunk', created: 1, model: 'o4-mini' };
    const frames = [{ ...base, choices: [{ index: 0, delta: { content: '' }, finish_reason: 'length' }] }];
    server = await startOpenAIServer([{ stream: chatSse(frames) }]);
    const model = createOpenAIModel({ model: 'o4-mini', apiKey: 'sk-test', baseURL: server.baseURL });
    const { error } = await collectError(model, modelRequest());
    expect(error).toMatchObject({ errorType: 'invalid_request', retryable: false });
    expect((error as ModelError).message).toMatch(/maxOutputTokens/);
  });

  it('throws a connection ModelError when the stream ends without a finish_reason', async () => {
    server = await startOpenAIServer([{ stream: chatSse(chatText.slice(0, 4), { done: false }) }]);
    const model = createOpenAIModel({ model: 'gpt-4o-mini', apiKey: 'sk-test', baseURL: server.baseURL });
    const { chunks, error } = await collectError(model, modelRequest());
    expect(joined(chunks, 'text')).toBe('Hello! How');
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).errorType).toBe('connection');
  });

  describe("a server's JSON of the wrong shape", () => {
    const base = { id: 'x', object: 'chat.completion.chunk', created: 1, model: 'local' };
    const frame = (delta: unknown, finish: string | null = null) => ({
      ...base,
      choices: [{ index: 0, delta, finish_reason: finish }],
    });

    it('call ids and names that are not strings are absent, object arguments are their JSON, null calls are skipped', async () => {
      const frames = [
        frame({
          tool_calls: [
            null,
            {
              index: 0,
              id: 123,
              type: 'function',
              function: { name: 'get_weather', arguments: { city: 'Oslo' } },
            },
            { index: 1, id: 'call_b', type: 'function', function: { name: 7, arguments: '{}' } },
          ],
        }),
        frame({}, 'tool_calls'),
      ];
      server = await startOpenAIServer([{ stream: chatSse(frames) }]);
      const model = createOpenAIModel({ model: 'local', baseURL: server.baseURL, apiKey: 'x' });
      const chunks = await collect(model, modelRequest({ tools }));
      for (const c of chunks)
        if (c.type === 'tool_call') {
          expect(typeof c.id).toBe('string');
          expect(typeof c.delta).toBe('string');
        }
      const calls = toolCalls(chunks);
      const ids = Object.keys(calls);
      expect(ids).toHaveLength(2);
      expect(ids[0]).toMatch(/^call_./);
      expect(calls[ids[0]!]).toEqual({ name: 'get_weather', input: '{"city":"Oslo"}' });
      expect(calls.call_b).toEqual({ name: undefined, input: '{}' });
    });

    it('usage counters that are negative, strings or too large for a double are no counts', async () => {
      const usage = '"usage":{"prompt_tokens":-5,"completion_tokens":"12","total_tokens":1e400}';
      const sse = [...chatSse([frame({ content: 'ok' }, 'stop')], { done: false })];
      sse.push(`data: {"id":"x","choices":[],${usage}}\n\n`, 'data: [DONE]\n\n');
      server = await startOpenAIServer([{ stream: sse }]);
      const model = createOpenAIModel({ model: 'local', baseURL: server.baseURL, apiKey: 'x' });
      const chunks = await collect(model, modelRequest());
      expect(chunks.at(-1)).toEqual({
        type: 'usage',
        usage: {
          inputTokens: 0,
          outputTokens: 0,
          cacheInputTokens: 0,
          cacheCreationInputTokens: 0,
          reasoningTokens: 0,
        },
      });
    });

    for (const [label, piece] of [
      ['choices that are not a list', `data: ${JSON.stringify({ ...base, choices: { 0: {} } })}\n\n`],
      ['tool calls that are not a list', `data: ${JSON.stringify(frame({ tool_calls: 'get_weather' }))}\n\n`],
      ['a null chunk', 'data: null\n\n'],
      ['a null choice', `data: ${JSON.stringify({ ...base, choices: [null] })}\n\n`],
    ] as const)
      it(`${label}: an upstream ModelError that says so, not the adapter's TypeError`, async () => {
        server = await startOpenAIServer([{ stream: [piece, 'data: [DONE]\n\n'] }]);
        const model = createOpenAIModel({ model: 'local', baseURL: server.baseURL, apiKey: 'x' });
        const { error } = await collectError(model, modelRequest());
        expect(error).toBeInstanceOf(ModelError);
        expect(error).toMatchObject({
          errorType: 'upstream',
          message: 'The model provider sent a malformed stream.',
        });
      });
  });
});
