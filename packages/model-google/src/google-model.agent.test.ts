import { Agent, createMsg, defineTool, getBlocks, getText, type AgentEvent, type Msg } from '@agentkit/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import error429 from './__fixtures__/error-429.json';
import finalAnswer from './__fixtures__/final-answer.json';
import { startGeminiServer, type GeminiTestServer } from './__fixtures__/gemini-test-server';
import parallelCalls from './__fixtures__/parallel-calls.json';
import textStream from './__fixtures__/text-stream.json';
import { createGoogleModel } from './google-model';

const PARIS_SIGNATURE = 'CiQBjz1rX8mQ2kq6m0mWm0cMUG7fS3ylwrvMZJ3yE1ZjJ2hG1eoKYQGPPWtfq3u1lI6E0xV4';
const ANSWER_SIGNATURE = 'Ej4KPAG6NRcMFzvqCv1v0r2nJc8Gfm3Ck9yZp0hL';

let server: GeminiTestServer;
beforeEach(async () => {
  server = await startGeminiServer();
});
afterEach(async () => {
  await server.close();
});

const weather = defineTool({
  name: 'get_weather',
  description: 'Current weather in a city.',
  inputSchema: {
    type: 'object',
    properties: { city: { type: 'string' }, unit: { type: 'string' } },
    required: ['city'],
  },
  concurrencySafe: true,
  execute: (input: { city: string }) => (input.city === 'Paris' ? '18 °C, sunny' : '22 °C, light rain'),
});

function gemini(model = 'gemini-3-pro-preview') {
  return createGoogleModel({ model, apiKey: 'test-key', httpOptions: { baseUrl: server.baseUrl } });
}

function agent(state?: unknown) {
  return new Agent({
    name: 'weather',
    systemPrompt: 'Answer with the weather.',
    model: gemini(),
    tools: [weather],
    modelRetry: { maxRetries: 2, initialDelayMs: 10_000, maxDelayMs: 10_000 },
    ...(state ? { state: JSON.parse(JSON.stringify(state)) } : {}),
  });
}

function modelTurnParts(body: any): any[] {
  return body.contents.filter((c: any) => c.role === 'model').flatMap((c: any) => c.parts);
}

describe('GoogleModel driving an Agent', () => {
  it('runs tool calls → results → answer, and keeps thought signatures across turns and state reloads', async () => {
    server.reply({ events: parallelCalls }, { events: finalAnswer });
    const first = agent();
    const msg = await first.reply('Weather in Paris and Tokyo?');
    expect(msg.finishedReason).toBe('completed');
    expect(msg.error).toBeNull();
    expect(getText(msg)).toContain('Paris: 18 °C and sunny. 東京: 22 °C, light rain.');

    const [calls, results] = [getBlocks(msg, 'tool_call'), getBlocks(msg, 'tool_result')];
    expect(calls.map((c) => c.input)).toEqual([
      '{"city":"Paris","unit":"celsius"}',
      '{"city":"東京","unit":"celsius"}',
    ]);
    expect(results.map((r) => [r.id, r.state])).toEqual([
      [calls[0]!.id, 'success'],
      [calls[1]!.id, 'success'],
    ]);

    // Second model call: the function calls come back with their signature, then the function responses.
    const second = server.requests[1]!.body;
    expect(modelTurnParts(second)).toEqual([
      { text: expect.stringContaining('**Checking both cities**'), thought: true },
      {
        functionCall: { name: 'get_weather', args: { city: 'Paris', unit: 'celsius' } },
        thoughtSignature: PARIS_SIGNATURE,
      },
      { functionCall: { name: 'get_weather', args: { city: '東京', unit: 'celsius' } } },
    ]);
    expect(second.contents.at(-1)).toEqual({
      role: 'user',
      parts: [
        { functionResponse: { name: 'get_weather', response: { output: '18 °C, sunny' } } },
        { functionResponse: { name: 'get_weather', response: { output: '22 °C, light rain' } } },
      ],
    });

    // A new agent from the JSON state sends the whole history, signatures included, on the next reply.
    server.reply({ events: textStream });
    const resumed = agent(first.state);
    const next = await resumed.reply('Thanks!');
    expect(next.finishedReason).toBe('completed');
    const third = server.requests[2]!.body;
    const parts = modelTurnParts(third);
    expect(parts.find((p) => p.functionCall?.args?.city === 'Paris')?.thoughtSignature).toBe(PARIS_SIGNATURE);
    expect(parts.find((p) => p.text?.startsWith('Paris: 18'))).toEqual({
      text: 'Paris: 18 °C and sunny. 東京: 22 °C, light rain.',
      thoughtSignature: ANSWER_SIGNATURE,
    });
    expect(third.contents.at(-1)).toEqual({ role: 'user', parts: [{ text: 'Thanks!' }] });
  });

  it('sends a schema-invalid call back to Gemini as a function error', async () => {
    const badCall = structuredClone(parallelCalls[1]!) as any;
    badCall.candidates[0].content.parts = [
      { functionCall: { name: 'get_weather', args: { town: 'Paris' } } },
    ];
    server.reply({ events: [badCall] }, { events: finalAnswer });
    const msg = await agent().reply('Weather in Paris?');
    expect(msg.finishedReason).toBe('completed');
    expect(getBlocks(msg, 'tool_result')[0]!.state).toBe('error');
    const response = server.requests[1]!.body.contents.at(-1).parts[0].functionResponse;
    expect(response.name).toBe('get_weather');
    expect(Object.keys(response.response)).toEqual(['error']);
    expect(response.response.error).not.toBe('');
  });

  it('ends the reply with error type connection when the stream is cut, and the state stays resumable', async () => {
    server.reply({ events: textStream, dropAfter: 1 });
    const first = agent();
    const msg = await first.reply('Say hello');
    expect(msg.finishedReason).toBe('error');
    expect(msg.error?.type).toBe('connection');
    expect(getText(msg)).toBe('Hello');
    expect(server.requests).toHaveLength(1); // output had streamed: no silent retry

    server.reply({ events: textStream });
    const resumed = agent(first.state);
    const next = await resumed.reply('Try again');
    expect(next.finishedReason).toBe('completed');
    expect(getText(next)).toBe('Hello, world! 你好。');
    const contents = server.requests[1]!.body.contents;
    expect(contents[0]).toEqual({ role: 'user', parts: [{ text: 'Say hello' }] });
    expect(contents.at(-1)).toEqual({ role: 'user', parts: [{ text: 'Try again' }] });
  });

  it('ends interrupted on abort mid-stream and keeps the partial text', async () => {
    server.reply({ events: textStream, hangAfter: 2 });
    const controller = new AbortController();
    const events: AgentEvent[] = [];
    let final: Msg | undefined;
    let deltas = 0;
    for await (const item of agent().replyStream('Say hello', {
      signal: controller.signal,
      yieldFinalMsg: true,
    })) {
      if ('type' in item && typeof item.type === 'string' && item.type.toUpperCase() === item.type) {
        events.push(item as AgentEvent);
        if (item.type === 'TEXT_BLOCK_DELTA' && ++deltas === 2) controller.abort();
      } else final = item as Msg;
    }
    expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishedReason: 'interrupted' });
    expect(final?.finishedReason).toBe('interrupted');
    expect(getText(final!)).toBe('Hello, wor');
    await server.clientClosed;
  });

  it('waits the RetryInfo delay after a 429 and then succeeds', async () => {
    server.reply({ status: 429, body: error429 }, { events: textStream });
    const started = Date.now();
    const msg = await agent().reply('Say hello');
    expect(msg.finishedReason).toBe('completed');
    expect(getText(msg)).toBe('Hello, world! 你好。');
    expect(server.requests).toHaveLength(2);
    // The 50 ms RetryInfo delay was used, not the 10 s backoff.
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('another agent observed in the conversation', () => {
  it("goes to Gemini as an attributed user turn, not as the model's own", async () => {
    server.reply({ events: textStream }, { events: textStream });
    const alice = new Agent({ name: 'Alice', model: gemini('gemini-2.5-flash') });
    await alice.reply('Say hello.');
    await alice.observe(
      createMsg({ role: 'assistant', name: 'Bob', content: 'Hello from Bob, the other agent.' }),
    );
    const msg = await alice.reply(null);
    expect(msg.finishedReason).toBe('completed');
    const contents = server.requests[1]!.body.contents as Array<{
      role: string;
      parts: Array<{ text?: string }>;
    }>;
    expect(contents.map((c) => c.role)).toEqual(['user', 'model', 'user']);
    expect(contents[1]!.parts.map((p) => p.text).join('')).toBe('Hello, world! 你好。');
    expect(contents[2]!.parts).toEqual([{ text: 'Bob: Hello from Bob, the other agent.' }]);
  });
});
