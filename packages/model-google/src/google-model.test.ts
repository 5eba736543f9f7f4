import { getEventListeners } from 'node:events';
import { GoogleGenAI } from '@google/genai';
import {
  assistantMsg,
  ModelError,
  textBlock,
  userMsg,
  type ContentBlock,
  type ModelChunk,
  type ModelRequest,
  type Msg,
  type ToolSchema,
} from '@agentkit/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import callWithId from './__fixtures__/call-with-id.json';
import error400Signature from './__fixtures__/error-400-signature.json';
import error401 from './__fixtures__/error-401.json';
import error429 from './__fixtures__/error-429.json';
import error500 from './__fixtures__/error-500.json';
import errorApiKey from './__fixtures__/error-api-key-invalid.json';
import finalAnswer from './__fixtures__/final-answer.json';
import { startGeminiServer, type GeminiTestServer } from './__fixtures__/gemini-test-server';
import parallelCalls from './__fixtures__/parallel-calls.json';
import textStream from './__fixtures__/text-stream.json';
import thinkingStream from './__fixtures__/thinking-stream.json';
import { createGoogleModel, type GoogleModel, type GoogleModelOptions } from './google-model';
import { SYNTHETIC_ID_KEY } from './to-gemini-contents';

const weatherTool: ToolSchema = {
  name: 'get_weather',
  description: 'Current weather in a city.',
  inputSchema: {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
    required: ['city'],
    additionalProperties: false,
  },
};

let server: GeminiTestServer;
beforeEach(async () => {
  server = await startGeminiServer();
});
afterEach(async () => {
  await server.close();
});

function model(options: Partial<GoogleModelOptions> = {}): GoogleModel {
  return createGoogleModel({
    model: 'gemini-2.5-flash',
    apiKey: 'test-key',
    httpOptions: { baseUrl: server.baseUrl },
    ...options,
  });
}

function request(messages: Msg[], extra: Partial<ModelRequest> = {}): ModelRequest {
  return {
    systemPrompt: 'You are terse.',
    messages,
    tools: [],
    toolChoice: 'auto',
    signal: new AbortController().signal,
    ...extra,
  };
}

async function collect(stream: AsyncIterable<ModelChunk>): Promise<ModelChunk[]> {
  const out: ModelChunk[] = [];
  for await (const chunk of stream) out.push(chunk);
  return out;
}

async function failure(stream: AsyncIterable<ModelChunk>): Promise<{ chunks: ModelChunk[]; error: unknown }> {
  const chunks: ModelChunk[] = [];
  try {
    for await (const chunk of stream) chunks.push(chunk);
  } catch (error) {
    return { chunks, error };
  }
  throw new Error('expected the stream to fail');
}

/** Builds the assistant blocks an agent would keep from the chunks (deltas merged per block). */
function blocksFrom(chunks: ModelChunk[]): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  let open: ContentBlock | undefined;
  for (const chunk of chunks) {
    if (chunk.type === 'text' || chunk.type === 'thinking') {
      if (open?.type !== chunk.type) {
        open =
          chunk.type === 'text'
            ? { type: 'text', id: `b${blocks.length}`, text: '' }
            : { type: 'thinking', id: `b${blocks.length}`, thinking: '' };
        blocks.push(open);
      }
      if (open.type === 'text') open.text += chunk.delta;
      else if (open.type === 'thinking') open.thinking += chunk.delta;
      if (chunk.providerData) open.providerData = { ...open.providerData, ...chunk.providerData };
    } else if (chunk.type === 'tool_call') {
      open = undefined;
      blocks.push({
        type: 'tool_call',
        id: chunk.id,
        name: chunk.name ?? '',
        input: chunk.delta,
        state: 'finished',
        ...(chunk.providerData ? { providerData: chunk.providerData } : {}),
      });
    }
  }
  return blocks;
}

describe('GoogleModel over @google/genai against a Gemini wire-format server', () => {
  it('streams text deltas and reports usage once, at the end', async () => {
    server.reply({ events: textStream });
    const chunks = await collect(model().stream(request([userMsg('Say hello')])));
    expect(chunks).toEqual([
      { type: 'text', delta: 'Hello' },
      { type: 'text', delta: ', wor' },
      { type: 'text', delta: 'ld! 你好。' },
      {
        type: 'usage',
        usage: {
          inputTokens: 12,
          outputTokens: 7,
          cacheInputTokens: 4,
          cacheCreationInputTokens: 0,
          reasoningTokens: 0,
        },
      },
    ]);
    const [received] = server.requests;
    expect(received!.path).toBe('/v1/models/gemini-2.5-flash:streamGenerateContent');
    expect(received!.query.get('alt')).toBe('sse');
    expect(received!.headers['x-goog-api-key']).toBe('test-key');
    expect(received!.body.systemInstruction).toEqual({ parts: [{ text: 'You are terse.' }], role: 'user' });
    expect(received!.body.contents).toEqual([{ role: 'user', parts: [{ text: 'Say hello' }] }]);
    expect(received!.body.tools).toBeUndefined();
    expect(received!.body.toolConfig).toBeUndefined();
  });

  it('streams thought parts as thinking, sends thinkingConfig, and counts thoughts as reasoning output', async () => {
    server.reply({ events: thinkingStream });
    const chunks = await collect(
      model({ thinking: { includeThoughts: true, thinkingBudget: 1024 } }).stream(
        request([userMsg('2 + 2?')]),
      ),
    );
    expect(chunks.map((c) => c.type)).toEqual(['thinking', 'thinking', 'text', 'usage']);
    expect(chunks[0]).toMatchObject({
      type: 'thinking',
      delta: expect.stringContaining('**Calculating the sum**'),
    });
    expect(chunks[2]).toEqual({ type: 'text', delta: '2 + 2 = 4.' });
    expect(chunks[3]).toEqual({
      type: 'usage',
      usage: {
        inputTokens: 9,
        outputTokens: 109,
        cacheInputTokens: 0,
        cacheCreationInputTokens: 0,
        reasoningTokens: 101,
      },
    });
    expect(server.requests[0]!.body.generationConfig.thinkingConfig).toEqual({
      includeThoughts: true,
      thinkingBudget: 1024,
    });
  });

  it('turns parallel function calls into one tool_call chunk each, with stable ids when Gemini sends none', async () => {
    server.reply({ events: parallelCalls }, { events: parallelCalls });
    const messages = [userMsg('Weather in Paris and Tokyo?')];
    const gemini = model({ model: 'gemini-3-pro-preview' });
    const first = await collect(gemini.stream(request(messages, { tools: [weatherTool] })));
    const calls = first.filter((c) => c.type === 'tool_call');
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatchObject({
      name: 'get_weather',
      delta: '{"city":"Paris","unit":"celsius"}',
      providerData: {
        thoughtSignature: 'CiQBjz1rX8mQ2kq6m0mWm0cMUG7fS3ylwrvMZJ3yE1ZjJ2hG1eoKYQGPPWtfq3u1lI6E0xV4',
        [SYNTHETIC_ID_KEY]: true,
      },
    });
    expect(calls[1]).toMatchObject({ name: 'get_weather', delta: '{"city":"東京","unit":"celsius"}' });
    expect(calls[1]!.providerData).toEqual({ [SYNTHETIC_ID_KEY]: true });
    const ids = calls.map((c) => (c as { id: string }).id);
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) expect(id).toMatch(/^call_[0-9a-z]+$/);
    // The same request answered by the same response gives the same ids.
    const replay = await collect(gemini.stream(request(messages, { tools: [weatherTool] })));
    expect(replay.filter((c) => c.type === 'tool_call').map((c) => (c as { id: string }).id)).toEqual(ids);
    // A different conversation state gives different ids.
    server.reply({ events: parallelCalls });
    const other = await collect(
      gemini.stream(request([userMsg('Weather again?')], { tools: [weatherTool] })),
    );
    expect(other.filter((c) => c.type === 'tool_call').map((c) => (c as { id: string }).id)).not.toEqual(ids);
  });

  it("keeps Gemini's own function call ids", async () => {
    server.reply({ events: callWithId });
    const chunks = await collect(model().stream(request([userMsg('Lisbon?')], { tools: [weatherTool] })));
    expect(chunks[0]).toEqual({
      type: 'tool_call',
      id: 'fc_8v3k2m1q',
      name: 'get_weather',
      delta: '{"city":"Lisbon"}',
      providerData: { thoughtSignature: 'EpYDCpMDAdHtim9nTzq1YhQcGz0mX4I0o0Wc0j7c' },
    });
  });

  it('sends thought signatures and function responses back on the next turn', async () => {
    server.reply({ events: parallelCalls }, { events: finalAnswer });
    const gemini = model({ model: 'gemini-3-pro-preview', thinking: { includeThoughts: true } });
    const question = userMsg('Weather in Paris and Tokyo?');
    const first = await collect(gemini.stream(request([question], { tools: [weatherTool] })));
    const blocks = blocksFrom(first);
    const [paris, tokyo] = blocks.filter((b) => b.type === 'tool_call');
    const reply = assistantMsg([
      ...blocks,
      {
        type: 'tool_result',
        id: paris!.id,
        name: 'get_weather',
        output: [textBlock('18 °C, sunny')],
        state: 'success',
        metadata: {},
      },
      {
        type: 'tool_result',
        id: tokyo!.id,
        name: 'get_weather',
        output: [textBlock('city not found')],
        state: 'error',
        metadata: {},
      },
    ]);
    const second = await collect(gemini.stream(request([question, reply], { tools: [weatherTool] })));
    expect(
      second
        .filter((c) => c.type === 'text')
        .map((c) => (c as { delta: string }).delta)
        .join(''),
    ).toBe('Paris: 18 °C and sunny. 東京: 22 °C, light rain.');
    // The closing empty part's signature lands on the text block.
    expect(second.at(-2)).toEqual({
      type: 'text',
      delta: '',
      providerData: { thoughtSignature: 'Ej4KPAG6NRcMFzvqCv1v0r2nJc8Gfm3Ck9yZp0hL' },
    });

    const body = server.requests[1]!.body;
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather in Paris and Tokyo?' }] },
      {
        role: 'model',
        parts: [
          { text: expect.stringContaining('**Checking both cities**'), thought: true },
          {
            functionCall: { name: 'get_weather', args: { city: 'Paris', unit: 'celsius' } },
            thoughtSignature: 'CiQBjz1rX8mQ2kq6m0mWm0cMUG7fS3ylwrvMZJ3yE1ZjJ2hG1eoKYQGPPWtfq3u1lI6E0xV4',
          },
          { functionCall: { name: 'get_weather', args: { city: '東京', unit: 'celsius' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { output: '18 °C, sunny' } } },
          { functionResponse: { name: 'get_weather', response: { error: 'city not found' } } },
        ],
      },
    ]);
  });

  it("returns Gemini's function call ids on both the call and its response", async () => {
    server.reply({ events: callWithId }, { events: finalAnswer });
    const gemini = model({ model: 'gemini-3-flash-preview' });
    const question = userMsg('Lisbon?');
    const first = await collect(gemini.stream(request([question], { tools: [weatherTool] })));
    const reply = assistantMsg([
      ...blocksFrom(first),
      {
        type: 'tool_result',
        id: 'fc_8v3k2m1q',
        name: 'get_weather',
        output: [textBlock('21 °C')],
        state: 'success',
        metadata: {},
      },
    ]);
    await collect(gemini.stream(request([question, reply], { tools: [weatherTool] })));
    const [, call, response] = server.requests[1]!.body.contents;
    expect(call.parts).toEqual([
      {
        functionCall: { id: 'fc_8v3k2m1q', name: 'get_weather', args: { city: 'Lisbon' } },
        thoughtSignature: 'EpYDCpMDAdHtim9nTzq1YhQcGz0mX4I0o0Wc0j7c',
      },
    ]);
    expect(response.parts).toEqual([
      { functionResponse: { id: 'fc_8v3k2m1q', name: 'get_weather', response: { output: '21 °C' } } },
    ]);
  });

  it('maps tool choice onto functionCallingConfig modes and passes the JSON schema as parametersJsonSchema', async () => {
    const choices: Array<[ModelRequest['toolChoice'], unknown]> = [
      ['auto', { mode: 'AUTO' }],
      ['none', { mode: 'NONE' }],
      ['required', { mode: 'ANY' }],
      [{ name: 'get_weather' }, { mode: 'ANY', allowedFunctionNames: ['get_weather'] }],
    ];
    for (const [toolChoice] of choices) {
      server.reply({ events: textStream });
      await collect(model().stream(request([userMsg('hi')], { tools: [weatherTool], toolChoice })));
    }
    expect(server.requests.map((r) => r.body.toolConfig.functionCallingConfig)).toEqual(
      choices.map(([, c]) => c),
    );
    expect(server.requests[0]!.body.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: 'get_weather',
            description: 'Current weather in a city.',
            parametersJsonSchema: {
              type: 'object',
              properties: {
                city: { type: 'string' },
                unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
              },
              required: ['city'],
              additionalProperties: false,
            },
          },
        ],
      },
    ]);
  });

  it('classifies HTTP 500 as upstream (retryable) and 401 as authentication', async () => {
    server.reply({ status: 500, body: error500 }, { status: 401, body: error401 });
    const upstream = (await failure(model().stream(request([userMsg('hi')])))).error;
    expect(upstream).toBeInstanceOf(ModelError);
    expect(upstream).toMatchObject({ errorType: 'upstream', status: 500, retryable: true });
    const auth = (await failure(model().stream(request([userMsg('hi')])))).error;
    expect(auth).toMatchObject({ errorType: 'authentication', status: 401, retryable: false });
    expect((auth as ModelError).message).not.toContain('OAuth');
  });

  it('classifies 403, 404 and 422 by status', async () => {
    const body = (code: number, status: string) => ({ error: { code, message: 'x', status } });
    server.reply(
      { status: 403, body: body(403, 'PERMISSION_DENIED') },
      { status: 404, body: body(404, 'NOT_FOUND') },
      { status: 422, body: body(422, 'FAILED_PRECONDITION') },
    );
    const types = [];
    for (let i = 0; i < 3; i++) types.push((await failure(model().stream(request([userMsg('hi')])))).error);
    expect(types).toMatchObject([
      { errorType: 'permission', status: 403, retryable: false },
      { errorType: 'invalid_request', status: 404, retryable: false },
      { errorType: 'invalid_request', status: 422, retryable: false },
    ]);
    expect((types[1] as ModelError).message).toContain('NOT_FOUND');
  });

  it("classifies Gemini's 400 API_KEY_INVALID as authentication", async () => {
    server.reply({ status: 400, body: errorApiKey });
    const { error } = await failure(model().stream(request([userMsg('hi')])));
    expect(error).toMatchObject({ errorType: 'authentication', status: 400, retryable: false });
  });

  it("keeps Google's explanation of an invalid request", async () => {
    server.reply({ status: 400, body: error400Signature });
    const { error } = await failure(model().stream(request([userMsg('hi')])));
    expect(error).toMatchObject({ errorType: 'invalid_request', status: 400, retryable: false });
    expect((error as ModelError).message).toContain('missing a thought_signature');
  });

  it('classifies 429 as rate_limit with the RetryInfo delay', async () => {
    server.reply({ status: 429, body: error429 });
    const { error } = await failure(model().stream(request([userMsg('hi')])));
    expect(error).toMatchObject({ errorType: 'rate_limit', status: 429, retryable: true, retryAfterMs: 50 });
  });

  it('classifies an error event inside the stream by its code', async () => {
    server.reply({
      events: [
        textStream[0],
        { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } },
      ],
    });
    const { chunks, error } = await failure(model().stream(request([userMsg('hi')])));
    expect(chunks).toEqual([{ type: 'text', delta: 'Hello' }]);
    expect(error).toMatchObject({ errorType: 'upstream', status: 503 });
  });

  it('reports a connection dropped mid-stream as connection, after the text already streamed', async () => {
    server.reply({ events: textStream, dropAfter: 2 });
    const { chunks, error } = await failure(model().stream(request([userMsg('hi')])));
    expect(chunks).toEqual([
      { type: 'text', delta: 'Hello' },
      { type: 'text', delta: ', wor' },
    ]);
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toMatchObject({ errorType: 'connection', retryable: true });
  });

  it('reports a response that ends in the middle of an event as connection', async () => {
    server.reply({ events: textStream, truncateAfter: 1 });
    const { chunks, error } = await failure(model().stream(request([userMsg('hi')])));
    expect(chunks).toEqual([{ type: 'text', delta: 'Hello' }]);
    expect(error).toMatchObject({ errorType: 'connection', retryable: true });
  });

  it('reports a stream that ends without a finish reason as connection', async () => {
    server.reply({ events: textStream.slice(0, 2) });
    const { chunks, error } = await failure(model().stream(request([userMsg('hi')])));
    expect(chunks).toHaveLength(2);
    expect(error).toMatchObject({ errorType: 'connection' });
  });

  it('reports a finished stream whose responses hold no candidate (and no block reason) as upstream', async () => {
    server.reply({
      events: [
        { candidates: [], usageMetadata: { promptTokenCount: 7, totalTokenCount: 7 }, responseId: 'empty1' },
        { usageMetadata: { promptTokenCount: 7, totalTokenCount: 7 }, responseId: 'empty1' },
      ],
    });
    const { chunks, error } = await failure(model().stream(request([userMsg('hi')])));
    expect(chunks).toEqual([]);
    expect(error).toMatchObject({ errorType: 'upstream', retryable: true });
    expect((error as ModelError).message).toMatch(/no candidate/);
  });

  it('reports a blocked prompt as invalid_request', async () => {
    server.reply({
      events: [
        {
          promptFeedback: { blockReason: 'PROHIBITED_CONTENT' },
          usageMetadata: { promptTokenCount: 7, totalTokenCount: 7 },
          modelVersion: 'gemini-2.5-flash',
          responseId: 'blockedResponse1',
        },
      ],
    });
    const { error } = await failure(model().stream(request([userMsg('hi')])));
    expect(error).toMatchObject({ errorType: 'invalid_request', retryable: false });
    expect((error as ModelError).message).toContain('PROHIBITED_CONTENT');
  });

  it('reports a malformed function call with no content as a retryable upstream error, a safety stop as invalid_request', async () => {
    const stop = (finishReason: string) => ({
      candidates: [
        {
          content: { role: 'model' },
          finishReason,
          finishMessage: 'Malformed function call: print(default_api.get_weather(',
          index: 0,
        },
      ],
      usageMetadata: { promptTokenCount: 30, totalTokenCount: 30 },
      modelVersion: 'gemini-2.5-flash',
      responseId: 'malformedResponse1',
    });
    server.reply({ events: [stop('MALFORMED_FUNCTION_CALL')] }, { events: [stop('SAFETY')] });
    const malformed = (await failure(model().stream(request([userMsg('hi')], { tools: [weatherTool] }))))
      .error;
    expect(malformed).toMatchObject({ errorType: 'upstream', retryable: true });
    expect((malformed as ModelError).message).toContain('MALFORMED_FUNCTION_CALL');
    const safety = (await failure(model().stream(request([userMsg('hi')])))).error;
    expect(safety).toMatchObject({ errorType: 'invalid_request', retryable: false });
  });

  it('reports a response that ran out of output tokens before any content as invalid_request naming the limit', async () => {
    server.reply({
      events: [
        {
          candidates: [{ content: { role: 'model' }, finishReason: 'MAX_TOKENS', index: 0 }],
          usageMetadata: { promptTokenCount: 30, thoughtsTokenCount: 64, totalTokenCount: 94 },
        },
      ],
    });
    const { chunks, error } = await failure(model().stream(request([userMsg('hi')])));
    expect(chunks).toEqual([]);
    expect(error).toMatchObject({ errorType: 'invalid_request', retryable: false });
    expect((error as ModelError).message).toMatch(/maxOutputTokens/);
  });

  it('reports a stream event that is not JSON as upstream', async () => {
    server.reply({ events: [textStream[0], '{"candidates": [{"content": {"parts": [{"text": "x"'] });
    const { chunks, error } = await failure(model().stream(request([userMsg('hi')])));
    expect(chunks).toEqual([{ type: 'text', delta: 'Hello' }]);
    expect(error).toMatchObject({ errorType: 'upstream' });
  });

  it('keeps two function calls with one id apart, and reads an id or name that is not a string as absent', async () => {
    const call = (functionCall: unknown) => ({ functionCall });
    server.reply({
      events: [
        {
          candidates: [
            {
              content: {
                role: 'model',
                parts: [
                  call({ id: 'dup', name: 'get_weather', args: { city: 'Oslo' } }),
                  call({ id: 'dup', name: 'get_weather', args: { city: 'Rome' } }),
                  call({ id: 7, name: 5, args: {} }),
                ],
              },
              finishReason: 'STOP',
              index: 0,
            },
          ],
          responseId: 'dupIds1',
        },
      ],
    });
    const chunks = await collect(model().stream(request([userMsg('hi')], { tools: [weatherTool] })));
    const calls = chunks.filter((c) => c.type === 'tool_call');
    expect(calls.map((c) => [c.id, c.name, c.delta])).toEqual([
      ['dup', 'get_weather', '{"city":"Oslo"}'],
      ['dup_2', 'get_weather', '{"city":"Rome"}'],
      [expect.stringMatching(/^call_/), '', '{}'],
    ]);
  });

  it("reports a response of the wrong shape as upstream, not the reader's own TypeError or RangeError", async () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    for (const event of [
      { candidates: [{ content: { role: 'model', parts: { text: 'not a list' } }, finishReason: 'STOP' }] },
      { candidates: [{ content: { role: 'model', parts: [null] }, finishReason: 'STOP' }] },
      `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"a":${deep}}}}]},"finishReason":"STOP"}]}`,
    ]) {
      server.reply({ events: [event] });
      const { error } = await failure(model().stream(request([userMsg('hi')], { tools: [weatherTool] })));
      expect(error).toBeInstanceOf(ModelError);
      expect(error).toMatchObject({
        errorType: 'upstream',
        message: 'Gemini sent a response of the wrong shape.',
      });
    }
  });

  it('reports an unreachable server as connection', async () => {
    const gone = server.baseUrl;
    await server.close();
    const { error } = await failure(
      model({ httpOptions: { baseUrl: gone } }).stream(request([userMsg('hi')])),
    );
    expect(error).toMatchObject({ errorType: 'connection' });
    server = await startGeminiServer();
  });

  it('stops when the signal aborts mid-stream and closes the connection', async () => {
    server.reply({ events: textStream, hangAfter: 1 });
    const controller = new AbortController();
    const stream = model().stream(request([userMsg('hi')], { signal: controller.signal }));
    const chunks: ModelChunk[] = [];
    let caught: unknown;
    try {
      for await (const chunk of stream) {
        chunks.push(chunk);
        controller.abort();
      }
    } catch (error) {
      caught = error;
    }
    expect(chunks).toEqual([{ type: 'text', delta: 'Hello' }]);
    expect(caught).toBeDefined();
    expect(caught).not.toBeInstanceOf(ModelError);
    expect((caught as Error).name).toBe('AbortError');
    expect(controller.signal.aborted).toBe(true);
    await server.clientClosed;
  });

  it('closes the connection when the consumer stops reading early, without aborting', async () => {
    server.reply({ events: textStream, hangAfter: 1 });
    for await (const chunk of model().stream(request([userMsg('hi')]))) {
      expect(chunk).toEqual({ type: 'text', delta: 'Hello' });
      break;
    }
    await server.clientClosed;
  });

  it('starts a new data block for every inline image part (two images are never merged)', async () => {
    const image = (data: string) => ({ inlineData: { mimeType: 'image/png', data } });
    server.reply({
      events: [
        {
          candidates: [
            {
              content: {
                role: 'model',
                parts: [{ ...image('AAAA'), thoughtSignature: 'sig-img' }, image('BBBB')],
              },
            },
          ],
        },
        {
          candidates: [{ content: { role: 'model', parts: [image('CCCC')] }, finishReason: 'STOP' }],
          usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 3 },
        },
      ],
    });
    const chunks = await collect(model().stream(request([userMsg('draw three')])));
    expect(chunks.filter((c) => c.type === 'data')).toEqual([
      {
        type: 'data',
        mediaType: 'image/png',
        data: 'AAAA',
        newBlock: true,
        providerData: { thoughtSignature: 'sig-img' },
      },
      { type: 'data', mediaType: 'image/png', data: 'BBBB', newBlock: true },
      { type: 'data', mediaType: 'image/png', data: 'CCCC', newBlock: true },
    ]);
  });

  it('reports the HTTP timeout (httpOptions.timeout) firing mid-stream as connection', async () => {
    server.reply({ events: textStream, hangAfter: 1 });
    const slow = model({ httpOptions: { baseUrl: server.baseUrl, timeout: 300 } });
    const { chunks, error } = await failure(slow.stream(request([userMsg('hi')])));
    expect(chunks).toEqual([{ type: 'text', delta: 'Hello' }]);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).errorType).toBe('connection');
    await server.clientClosed;
  });

  it("leaves no listener on the caller's signal after a call (one signal serves a whole reply)", async () => {
    const controller = new AbortController();
    for (let i = 0; i < 3; i++) {
      server.reply({ events: textStream });
      await collect(model().stream(request([userMsg('hi')], { signal: controller.signal })));
    }
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
  });

  it('uses an injected client as is', async () => {
    server.reply({ events: textStream });
    const client = new GoogleGenAI({
      apiKey: 'injected-key',
      httpOptions: { baseUrl: server.baseUrl, headers: { 'x-test': '1' } },
    });
    const gemini = createGoogleModel({ model: 'gemini-2.5-flash', client });
    expect(gemini.client).toBe(client);
    await collect(gemini.stream(request([userMsg('hi')])));
    expect(server.requests[0]!.headers['x-goog-api-key']).toBe('injected-key');
    expect(server.requests[0]!.headers['x-test']).toBe('1');
  });

  it('talks to Vertex AI paths when vertexai is set (express mode with an API key)', async () => {
    server.reply({ events: textStream });
    const gemini = model({ vertexai: true, apiKey: 'vertex-key' });
    expect(gemini.client.vertexai).toBe(true);
    await collect(gemini.stream(request([userMsg('hi')])));
    expect(server.requests[0]!.path).toBe(
      '/v1beta1/publishers/google/models/gemini-2.5-flash:streamGenerateContent',
    );
  });

  it('sends extra generation config and lets the adapter fields win', async () => {
    server.reply({ events: textStream });
    await collect(
      model({ config: { temperature: 0.2, maxOutputTokens: 256 } }).stream(request([userMsg('hi')])),
    );
    expect(server.requests[0]!.body.generationConfig).toMatchObject({
      temperature: 0.2,
      maxOutputTokens: 256,
    });
  });
});
