import { Agent, assistantMsg, textBlock, userMsg, type TokenCountInput } from '@agentkit/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startGeminiServer, type GeminiTestServer } from './__fixtures__/gemini-test-server';
import { estimateTokens } from './gemini-token-counter';
import { createGoogleModel, type GoogleModelOptions } from './google-model';

let server: GeminiTestServer;
beforeEach(async () => {
  server = await startGeminiServer();
});
afterEach(async () => {
  await server.close();
});

const model = (options: Partial<GoogleModelOptions> = {}) =>
  createGoogleModel({
    model: 'gemini-2.5-flash',
    apiKey: 'test-key',
    httpOptions: { baseUrl: server.baseUrl },
    ...options,
  });

const input = (text: string): TokenCountInput => ({
  systemPrompt: 'You are terse.',
  messages: [userMsg(text), assistantMsg([textBlock('Sure.')])],
  tools: [{ name: 'noop', description: 'Does nothing', inputSchema: { type: 'object' } }],
});

const until = async (check: () => boolean) => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
};

describe('countTokens through the Gemini count-tokens endpoint', () => {
  it('sends the system prompt, tools and messages to models.countTokens and caches the answer', async () => {
    const m = model();
    server.countReply({ status: 200, body: { totalTokens: 57 } });
    expect(await m.countTokensExact(input('Count me.'))).toBe(57);
    expect(server.countRequests).toHaveLength(1);
    const [sent] = server.countRequests;
    expect(sent?.path).toMatch(/\/models\/gemini-2\.5-flash:countTokens$/);
    expect(sent?.headers['x-goog-api-key']).toBe('test-key');
    expect(sent?.body.contents).toEqual([
      { role: 'user', parts: [{ text: 'You are terse.' }] },
      {
        role: 'user',
        parts: [{ text: JSON.stringify(input('').tools) }],
      },
      { role: 'user', parts: [{ text: 'Count me.' }] },
      { role: 'model', parts: [{ text: 'Sure.' }] },
    ]);
    // Cached by content: neither the sync nor the async count asks again.
    expect(m.countTokens?.(input('Count me.'))).toBe(57);
    expect(await m.countTokensExact(input('Count me.'))).toBe(57);
    expect(server.countRequests).toHaveLength(1);
  });

  it('answers the sync count at once with the estimate, then exactly once the endpoint has answered', async () => {
    const m = model();
    const first = input('A message counted in the background.');
    server.countReply({ status: 200, body: { totalTokens: 2 * estimateTokens(first) } });
    expect(m.countTokens?.(first)).toBe(estimateTokens(first));
    await until(() => m.countTokens?.(first) === 2 * estimateTokens(first));
    // What the endpoint said calibrates the estimates of content it has not counted yet.
    const second = input('Another message, not counted yet, a little longer than the first one.');
    server.countReply({ status: 200, body: { totalTokens: 1 } });
    expect(m.countTokens?.(second)).toBe(Math.round(estimateTokens(second) * 2));
  });

  it("falls back to core's estimate when the endpoint fails, and stops asking after three failures in a row", async () => {
    const m = model();
    server.countReply(
      { status: 500, body: { error: { code: 500, message: 'boom', status: 'INTERNAL' } } },
      { status: 200, body: { unexpected: true } },
      { status: 429, body: { error: { code: 429, message: 'slow down', status: 'RESOURCE_EXHAUSTED' } } },
    );
    for (const text of ['one', 'two', 'three'])
      expect(await m.countTokensExact(input(text))).toBe(estimateTokens(input(text)));
    expect(server.countRequests).toHaveLength(3);
    expect(await m.countTokensExact(input('four'))).toBe(estimateTokens(input('four')));
    expect(m.countTokens?.(input('five'))).toBe(estimateTokens(input('five')));
    expect(server.countRequests).toHaveLength(3);
  });

  it('an empty input is 0 tokens without a request; countTokens: false leaves counting to core', async () => {
    const m = model();
    expect(await m.countTokensExact({ systemPrompt: '', messages: [], tools: [] })).toBe(0);
    expect(server.countRequests).toHaveLength(0);
    const off = model({ countTokens: false });
    expect(off.countTokens).toBeUndefined();
    expect(await off.countTokensExact(input('x'))).toBe(estimateTokens(input('x')));
    expect(server.countRequests).toHaveLength(0);
  });

  it("an agent's token counter goes through it", async () => {
    const m = model();
    server.countReply({ status: 200, body: { totalTokens: 1000 } });
    const agent = new Agent({ name: 'a', model: m, systemPrompt: 'You are terse.' });
    const question = { systemPrompt: '', messages: [userMsg('How long is this?')], tools: [] };
    expect(await m.countTokensExact(question)).toBe(1000);
    expect(agent.countTokens(question)).toBe(1000);
    expect(server.countRequests).toHaveLength(1);
  });
});
