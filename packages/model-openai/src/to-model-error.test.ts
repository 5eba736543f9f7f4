import { ModelError } from '@agentkit/core';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import chatText from './__fixtures__/chat-text.json';
import errors from './__fixtures__/errors.json';
import { collect, collectError, joined, modelRequest } from './__fixtures__/helpers';
import {
  type OpenAITestServer,
  type ServerReply,
  chatSse,
  startOpenAIServer,
} from './__fixtures__/openai-server';
import { createOpenAIModel } from './openai-model';
import { retryAfter } from './to-model-error';

let server: OpenAITestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const apiKey = 'sk-test-abcdefghijklmnopqrstuvwxyz1234';

async function failWith(reply: ServerReply): Promise<{ error: ModelError; text: string }> {
  server = await startOpenAIServer([reply]);
  const model = createOpenAIModel({ model: 'gpt-4o-mini', apiKey, baseURL: server.baseURL });
  const { chunks, error } = await collectError(model, modelRequest());
  expect(error).toBeInstanceOf(ModelError);
  return { error: error as ModelError, text: joined(chunks, 'text') };
}

describe('error classification', () => {
  it('401 → authentication, not retryable, and the provider text (which echoes the key) is not copied', async () => {
    const { error } = await failWith({ status: 401, body: errors['401'] });
    expect(error.errorType).toBe('authentication');
    expect(error.status).toBe(401);
    expect(error.retryable).toBe(false);
    expect(error.message).not.toContain('sk-');
    expect(error.message).not.toContain(apiKey);
  });

  it('500 → upstream, retryable', async () => {
    const { error } = await failWith({ status: 500, body: errors['500'] });
    expect(error.errorType).toBe('upstream');
    expect(error.status).toBe(500);
    expect(error.retryable).toBe(true);
    expect(server!.requests).toHaveLength(1); // the built client leaves retries to the agent loop
  });

  it('429 → rate_limit with retry-after (seconds) parsed', async () => {
    const { error } = await failWith({ status: 429, body: errors['429'], headers: { 'retry-after': '20' } });
    expect(error.errorType).toBe('rate_limit');
    expect(error.retryable).toBe(true);
    expect(error.retryAfterMs).toBe(20_000);
    expect(error.message).toContain('rate_limit_exceeded');
  });

  it('429 → retry-after-ms wins over retry-after', async () => {
    const { error } = await failWith({
      status: 429,
      body: errors['429'],
      headers: { 'retry-after-ms': '1500', 'retry-after': '2' },
    });
    expect(error.retryAfterMs).toBe(1500);
  });

  it('403 → permission; 400/404/422 → invalid_request with the provider explanation', async () => {
    expect(
      (await failWith({ status: 403, body: { error: { message: 'Project does not have access' } } })).error
        .errorType,
    ).toBe('permission');
    await server?.close();
    const bad = await failWith({ status: 400, body: errors['400'] });
    expect(bad.error.errorType).toBe('invalid_request');
    expect(bad.error.retryable).toBe(false);
    expect(bad.error.message).toContain("Invalid schema for function 'get_weather'");
    for (const status of [404, 422]) {
      await server?.close();
      expect((await failWith({ status, body: { error: { message: 'nope' } } })).error.errorType).toBe(
        'invalid_request',
      );
    }
  });

  it('a connection dropped mid-stream → connection, after the partial text', async () => {
    const { error, text } = await failWith({ stream: chatSse(chatText).slice(0, 4), ending: 'destroy' });
    expect(text).toBe('Hello! How');
    expect(error.errorType).toBe('connection');
    expect(error.retryable).toBe(true);
    expect(error.cause).toBeDefined(); // classified from the socket error itself
  });

  it('an unreachable server → connection', async () => {
    const probe = await startOpenAIServer([{ status: 200, body: {} }]);
    const { baseURL } = probe;
    await probe.close();
    const model = createOpenAIModel({ model: 'gpt-4o-mini', apiKey, baseURL });
    const { error } = await collectError(model, modelRequest());
    expect((error as ModelError).errorType).toBe('connection');
  });

  it('a request timeout → connection', async () => {
    server = await startOpenAIServer([{ silent: true }]);
    const model = createOpenAIModel({ model: 'gpt-4o-mini', apiKey, baseURL: server.baseURL, timeout: 100 });
    const { error } = await collectError(model, modelRequest());
    expect((error as ModelError).errorType).toBe('connection');
    expect((error as ModelError).retryable).toBe(true);
  });

  it('redacts the key of an injected client from provider texts', async () => {
    const secret = 'custom-secret-token-42';
    server = await startOpenAIServer([
      {
        status: 400,
        body: { error: { message: `Bad request for key ${secret}`, type: 'invalid_request_error' } },
      },
    ]);
    const client = new OpenAI({ apiKey: secret, baseURL: server.baseURL, maxRetries: 0 });
    const { error } = await collectError(createOpenAIModel({ model: 'm', client }), modelRequest());
    expect((error as ModelError).errorType).toBe('invalid_request');
    expect((error as ModelError).message).toContain('Bad request for key [redacted]');
    expect((error as ModelError).message).not.toContain(secret);
  });

  it('an error event inside the stream is classified from its type', async () => {
    const frames = [
      ...chatSse(chatText.slice(0, 2), { done: false }),
      `data: ${JSON.stringify({ error: { message: 'The server is overloaded', type: 'server_error', code: null } })}\n\n`,
    ];
    const { error, text } = await failWith({ stream: frames });
    expect(text).toBe('Hello');
    expect(error.errorType).toBe('upstream');
  });

  it('an error event with a numeric HTTP-like code (OpenRouter, LiteLLM) is classified by that code', async () => {
    for (const [code, type] of [
      [429, 'rate_limit'],
      [401, 'authentication'],
      [400, 'invalid_request'],
      ['502', 'upstream'],
    ] as const) {
      const frames = [
        ...chatSse(chatText.slice(0, 2), { done: false }),
        `data: ${JSON.stringify({ error: { message: 'Provider returned error', code } })}\n\n`,
      ];
      const { error } = await failWith({ stream: frames });
      expect([code, error.errorType]).toEqual([code, type]);
      await server?.close();
      server = undefined;
    }
  });

  it('abort mid-stream stops the stream with the abort reason, not a ModelError', async () => {
    server = await startOpenAIServer([{ stream: chatSse(chatText).slice(0, 3), ending: 'hang' }]);
    const model = createOpenAIModel({ model: 'gpt-4o-mini', apiKey, baseURL: server.baseURL });
    const controller = new AbortController();
    const chunks: string[] = [];
    let caught: unknown;
    try {
      for await (const chunk of model.stream(modelRequest({ signal: controller.signal }))) {
        if (chunk.type === 'text') chunks.push(chunk.delta);
        if (chunks.join('') === 'Hello!') controller.abort();
      }
    } catch (error) {
      caught = error;
    }
    expect(chunks.join('')).toBe('Hello!');
    expect(caught).toBe(controller.signal.reason);
    expect((caught as Error).name).toBe('AbortError');
    await server.clientGone; // the request was really cancelled
  });

  it('an already aborted signal sends nothing', async () => {
    server = await startOpenAIServer([{ stream: chatSse(chatText) }]);
    const model = createOpenAIModel({ model: 'gpt-4o-mini', apiKey, baseURL: server.baseURL });
    const controller = new AbortController();
    controller.abort(new Error('stop'));
    await expect(collect(model, modelRequest({ signal: controller.signal }))).rejects.toThrow('stop');
    expect(server.requests).toHaveLength(0);
  });
});

describe('retryAfter', () => {
  it('parses seconds, milliseconds and HTTP dates; ignores junk', () => {
    expect(retryAfter(new Headers({ 'retry-after': '3' }))).toEqual({ retryAfterMs: 3000 });
    expect(retryAfter(new Headers({ 'retry-after-ms': '250' }))).toEqual({ retryAfterMs: 250 });
    const date = new Date(Date.now() + 10_000).toUTCString();
    const ms = retryAfter(new Headers({ 'retry-after': date })).retryAfterMs!;
    expect(ms).toBeGreaterThan(8_000);
    expect(ms).toBeLessThanOrEqual(10_000);
    expect(retryAfter(new Headers({ 'retry-after': 'soon' }))).toEqual({});
    expect(retryAfter(undefined)).toEqual({});
  });
});

describe('secrets in provider texts, through the SDK', () => {
  const googleKey = 'AIzaSyD-9tSrke72PouQMnMX-a7eZSW0jkFMBWY';
  const openaiKey = 'sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv1wXy4z';
  const leaky = `Upstream call to https://proxy.example/v1?key=${googleKey}&alt=sse with Bearer ${openaiKey} failed (also ${googleKey}, ${openaiKey}).`;

  const expectRedacted = (message: string) => {
    expect(message).not.toContain('AIza');
    expect(message).not.toContain('sk-proj');
    expect(message).not.toContain(apiKey);
    expect(message).toContain('Upstream call to https://proxy.example/v1?key=[redacted]&alt=sse');
  };

  it('Chat Completions: an HTTP error body with both key shapes', async () => {
    const { error } = await failWith({
      status: 400,
      body: { error: { message: `${leaky} Your key: ${apiKey}`, type: 'invalid_request_error' } },
    });
    expect(error.errorType).toBe('invalid_request');
    expectRedacted(error.message);
  });

  it('Chat Completions: an error inside the stream with both key shapes', async () => {
    const frames = [
      ...chatSse(chatText.slice(0, 2), { done: false }),
      `data: ${JSON.stringify({ error: { message: leaky, type: 'invalid_request_error', code: null } })}\n\n`,
    ];
    const { error } = await failWith({ stream: frames });
    expectRedacted(error.message);
  });

  it('Responses: an error event with both key shapes', async () => {
    server = await startOpenAIServer([
      {
        stream: [
          `event: error\ndata: ${JSON.stringify({ type: 'error', code: 'invalid_request', message: leaky, param: null, sequence_number: 0 })}\n\n`,
        ],
      },
    ]);
    const model = createOpenAIModel({
      model: 'gpt-4o-mini',
      apiKey,
      baseURL: server.baseURL,
      api: 'responses',
    });
    const { error } = await collectError(model, modelRequest());
    expect(error).toBeInstanceOf(ModelError);
    expectRedacted((error as ModelError).message);
  });
});
