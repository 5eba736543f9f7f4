import { Agent, defineTool } from '@agentkit/core';
import { ScriptedModel, textChunks, thinkingChunk, toolCallChunk } from '@agentkit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { only, type TestSdk, testSdk } from '../test/otel-sdk';
import { otel } from './otel-plugin';

const weather = defineTool({
  name: 'get_weather',
  description: 'The weather in a city',
  inputSchema: z.object({ city: z.string() }),
  execute: ({ city }) => JSON.stringify({ city, sky: 'rainy', celsius: 14 }),
});

let sdk: TestSdk;
afterEach(async () => {
  await sdk?.shutdown();
});

const json = (value: unknown) => JSON.parse(String(value));

describe('captureContent: true', () => {
  it('records instructions, messages, tool definitions, arguments and results as the conventions’ JSON', async () => {
    sdk = testSdk();
    const model = new ScriptedModel(
      [
        [thinkingChunk('I should look it up.'), toolCallChunk('get_weather', { city: 'Paris' }, 'call_w')],
        textChunks('Rainy, 14 °C.'),
      ],
      { name: 'gpt-5-mini' },
    );
    const agent = new Agent({
      name: 'weather',
      systemPrompt: 'You report the weather.',
      model,
      tools: [weather],
      plugins: [otel({ tracerProvider: sdk.tracerProvider, captureContent: true })],
    });
    await agent.reply('Weather in Paris?');
    const spans = sdk.spans();
    const [first, second] = spans.filter((s) => s.name === 'chat gpt-5-mini');

    const instructions = [{ type: 'text', content: 'You report the weather.' }];
    expect(json(first!.attributes['gen_ai.system_instructions'])).toEqual(instructions);
    expect(json(first!.attributes['gen_ai.tool.definitions'])).toEqual([
      { type: 'function', name: 'get_weather' },
    ]);
    expect(json(first!.attributes['gen_ai.input.messages'])).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
    ]);
    expect(json(first!.attributes['gen_ai.output.messages'])).toEqual([
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', content: 'I should look it up.' },
          { type: 'tool_call', id: 'call_w', name: 'get_weather', arguments: { city: 'Paris' } },
        ],
        finish_reason: 'tool_call',
      },
    ]);
    // The second call sees the history, with the tool's answer as a tool message.
    expect(json(second!.attributes['gen_ai.input.messages'])).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', content: 'I should look it up.' },
          { type: 'tool_call', id: 'call_w', name: 'get_weather', arguments: { city: 'Paris' } },
        ],
      },
      {
        role: 'tool',
        parts: [
          {
            type: 'tool_call_response',
            id: 'call_w',
            response: { city: 'Paris', sky: 'rainy', celsius: 14 },
          },
        ],
      },
    ]);
    expect(json(second!.attributes['gen_ai.output.messages'])).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'Rainy, 14 °C.' }], finish_reason: 'stop' },
    ]);

    const tool = only(spans, 'execute_tool get_weather');
    expect(json(tool.attributes['gen_ai.tool.call.arguments'])).toEqual({ city: 'Paris' });
    expect(json(tool.attributes['gen_ai.tool.call.result'])).toEqual({
      city: 'Paris',
      sky: 'rainy',
      celsius: 14,
    });

    const run = only(spans, 'invoke_agent weather');
    expect(json(run.attributes['gen_ai.system_instructions'])).toEqual(instructions);
    expect(json(run.attributes['gen_ai.input.messages'])).toEqual([
      { role: 'user', parts: [{ type: 'text', content: 'Weather in Paris?' }] },
    ]);
    expect(json(run.attributes['gen_ai.output.messages'])).toEqual([
      { role: 'assistant', parts: [{ type: 'text', content: 'Rainy, 14 °C.' }], finish_reason: 'stop' },
    ]);
  });

  it('records no result for a failed tool call, only its arguments', async () => {
    sdk = testSdk();
    const broken = defineTool({
      name: 'broken',
      description: 'Fails',
      inputSchema: z.object({ q: z.string() }),
      execute: () => {
        throw new Error('secret token abc expired');
      },
    });
    const model = new ScriptedModel([[toolCallChunk('broken', { q: 'x' }, 'call_b')], textChunks('Sorry.')]);
    const agent = new Agent({
      name: 'a',
      model,
      tools: [broken],
      plugins: [otel({ tracerProvider: sdk.tracerProvider, captureContent: true })],
    });
    await agent.reply('Go');
    const tool = only(sdk.spans(), 'execute_tool broken');
    expect(json(tool.attributes['gen_ai.tool.call.arguments'])).toEqual({ q: 'x' });
    expect(tool.attributes['gen_ai.tool.call.result']).toBeUndefined();
    expect(tool.status.message).toBeUndefined();
  });
});
