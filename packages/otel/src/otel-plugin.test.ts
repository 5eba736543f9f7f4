import { Agent, defineTool, type Plugin } from '@agentkit/core';
import { ScriptedModel, textChunks, toolCallChunk, usageChunk } from '@agentkit/core/testing';
import { type HrTime, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { only, point, type TestSdk, testSdk } from '../test/otel-sdk';
import { OTEL_PLUGIN_NAME, otel } from './otel-plugin';
import type { OtelOptions } from './otel-options';
import { OPERATION_DURATION_BUCKETS, TOKEN_USAGE_BUCKETS } from './semconv';

const add = defineTool({
  name: 'add',
  description: 'Add two numbers',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});

const ms = (t: HrTime) => t[0] * 1e3 + t[1] / 1e6;
const CONTENT_KEYS = [
  'gen_ai.input.messages',
  'gen_ai.output.messages',
  'gen_ai.system_instructions',
  'gen_ai.tool.definitions',
  'gen_ai.tool.call.arguments',
  'gen_ai.tool.call.result',
];

/** A reply with two tool rounds (one call, then two) and a final answer, each model call reporting usage. */
function twoRoundAgent(sdk: TestSdk, options: OtelOptions = {}) {
  const model = new ScriptedModel(
    [
      [toolCallChunk('add', { a: 1, b: 2 }, 'call_1'), usageChunk({ inputTokens: 100, outputTokens: 10 })],
      [
        toolCallChunk('add', { a: 3, b: 4 }, 'call_2'),
        toolCallChunk('add', { a: 5, b: 6 }, 'call_3'),
        usageChunk({ inputTokens: 150, outputTokens: 20, cacheInputTokens: 80 }),
      ],
      [...textChunks('The sums are 3, 7 and 11.'), usageChunk({ inputTokens: 200, outputTokens: 12 })],
    ],
    { name: 'gpt-5-mini' },
  );
  return new Agent({
    name: 'calc',
    systemPrompt: 'You add numbers.',
    model,
    tools: [add],
    plugins: [otel({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider, ...options })],
  });
}

let sdk: TestSdk;
afterEach(async () => {
  await sdk?.shutdown();
});

describe('a reply with two tool rounds', () => {
  it('is one invoke_agent span with its chat and execute_tool spans as children, in order', async () => {
    sdk = testSdk();
    const agent = twoRoundAgent(sdk);
    const msg = await agent.reply('Add 1+2, then 3+4 and 5+6.');
    expect(msg.finishedReason).toBe('completed');

    const spans = sdk.spans();
    const root = only(spans, 'invoke_agent calc');
    const chats = spans.filter((s) => s.name === 'chat gpt-5-mini');
    const tools = spans.filter((s) => s.name === 'execute_tool add');
    expect(spans).toHaveLength(7);
    expect(chats).toHaveLength(3);
    expect(tools.map((s) => s.attributes['gen_ai.tool.call.id'])).toEqual(['call_1', 'call_2', 'call_3']);

    expect(root.parentSpanContext).toBeUndefined();
    expect(root.kind).toBe(SpanKind.INTERNAL);
    for (const child of [...chats, ...tools]) {
      expect(child.spanContext().traceId).toBe(root.spanContext().traceId);
      expect(child.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    }
    // Model call, its tool calls, the next model call… each ends before the next starts (the SDK stamps
    // a span's start with Date.now(), to the millisecond).
    const timeline = [chats[0]!, tools[0]!, chats[1]!, tools[1]!, tools[2]!, chats[2]!];
    for (let i = 1; i < timeline.length; i++)
      expect(ms(timeline[i]!.startTime)).toBeGreaterThanOrEqual(ms(timeline[i - 1]!.endTime) - 1);
    expect(ms(root.startTime)).toBeLessThanOrEqual(ms(chats[0]!.startTime));
    expect(ms(root.endTime)).toBeGreaterThanOrEqual(ms(chats[2]!.endTime) - 1);

    expect(root.attributes).toMatchObject({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'openai',
      'gen_ai.agent.name': 'calc',
      'gen_ai.conversation.id': agent.state.sessionId,
      'gen_ai.request.model': 'gpt-5-mini',
      'gen_ai.usage.input_tokens': 450,
      'gen_ai.usage.output_tokens': 42,
      'gen_ai.usage.cache_read.input_tokens': 80,
      'gen_ai.response.finish_reasons': ['stop'],
      'agentkit.reply.id': msg.id,
      'agentkit.reply.finished_reason': 'completed',
    });
    expect(root.status.code).toBe(SpanStatusCode.UNSET);
    expect(root.attributes['error.type']).toBeUndefined();

    const expectedChats = [
      { input: 100, output: 10, finish: ['tool_call'] },
      { input: 150, output: 20, finish: ['tool_call'] },
      { input: 200, output: 12, finish: ['stop'] },
    ];
    chats.forEach((chat, i) => {
      expect(chat.kind).toBe(SpanKind.CLIENT);
      expect(chat.attributes).toMatchObject({
        'gen_ai.operation.name': 'chat',
        'gen_ai.provider.name': 'openai',
        'gen_ai.request.model': 'gpt-5-mini',
        'gen_ai.response.model': 'gpt-5-mini',
        'gen_ai.conversation.id': agent.state.sessionId,
        'gen_ai.request.stream': true,
        'gen_ai.usage.input_tokens': expectedChats[i]!.input,
        'gen_ai.usage.output_tokens': expectedChats[i]!.output,
        'gen_ai.response.finish_reasons': expectedChats[i]!.finish,
      });
      expect(chat.status.code).toBe(SpanStatusCode.UNSET);
    });
    expect(chats[1]!.attributes['gen_ai.usage.cache_read.input_tokens']).toBe(80);
    expect(chats[0]!.attributes['gen_ai.usage.cache_read.input_tokens']).toBeUndefined();

    for (const tool of tools) {
      expect(tool.kind).toBe(SpanKind.INTERNAL);
      expect(tool.attributes).toMatchObject({
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': 'add',
        'gen_ai.tool.type': 'function',
        'gen_ai.tool.description': 'Add two numbers',
        'agentkit.tool.result_state': 'success',
      });
      expect(tool.status.code).toBe(SpanStatusCode.UNSET);
    }
  });

  it('records no message content unless asked to', async () => {
    sdk = testSdk();
    await twoRoundAgent(sdk).reply('Add 1+2, then 3+4 and 5+6.');
    for (const span of sdk.spans())
      for (const key of CONTENT_KEYS) expect(span.attributes[key]).toBeUndefined();
  });

  it('keeps the run’s trace context in the reply’s plugin data, as a W3C traceparent', async () => {
    sdk = testSdk();
    const agent = twoRoundAgent(sdk);
    await agent.reply('Add 1+2, then 3+4 and 5+6.');
    const root = only(sdk.spans(), 'invoke_agent calc').spanContext();
    expect(agent.state.reply?.data[OTEL_PLUGIN_NAME]).toEqual({
      traceparent: `00-${root.traceId}-${root.spanId}-01`,
    });
  });

  it('measures token usage and durations in the conventions’ histograms with their bucket advice', async () => {
    sdk = testSdk();
    await twoRoundAgent(sdk).reply('Add 1+2, then 3+4 and 5+6.');

    const usage = await sdk.histogram('gen_ai.client.token.usage');
    expect(usage).toHaveLength(2);
    const common = {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-5-mini',
      'gen_ai.response.model': 'gpt-5-mini',
    };
    const input = point(usage, { ...common, 'gen_ai.token.type': 'input' });
    const output = point(usage, { ...common, 'gen_ai.token.type': 'output' });
    expect(input.value).toMatchObject({ count: 3, sum: 450, min: 100, max: 200 });
    expect(output.value).toMatchObject({ count: 3, sum: 42, min: 10, max: 20 });
    expect(input.value.buckets.boundaries).toEqual(TOKEN_USAGE_BUCKETS);
    // 100 and 150 fall in (64, 256], 200 too: the fifth bucket.
    expect(input.value.buckets.counts[4]).toBe(3);

    const durations = await sdk.histogram('gen_ai.client.operation.duration');
    expect(durations).toHaveLength(3);
    const chat = point(durations, common);
    const tool = point(durations, { 'gen_ai.operation.name': 'execute_tool' });
    const reply = point(durations, { 'gen_ai.operation.name': 'invoke_agent' });
    expect(chat.value.count).toBe(3);
    expect(tool.value.count).toBe(3);
    expect(reply.value.count).toBe(1);
    expect(tool.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.provider.name': 'openai',
      'gen_ai.system': 'openai',
    });
    expect(reply.attributes).toEqual({
      'gen_ai.operation.name': 'invoke_agent',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-5-mini',
      'gen_ai.system': 'openai',
    });
    for (const p of [chat, tool, reply]) {
      expect(p.value.buckets.boundaries).toEqual(OPERATION_DURATION_BUCKETS);
      expect(p.value.sum).toBeGreaterThan(0);
      expect(p.attributes['error.type']).toBeUndefined();
    }
    // A run lasts at least as long as its model calls and tool calls together.
    expect(reply.value.sum).toBeGreaterThanOrEqual(chat.value.sum! + tool.value.sum! - 1e-6);
  });
});

describe('OTEL_SEMCONV_STABILITY_OPT_IN', () => {
  const system = (spans: ReadableSpan[]) => spans.map((s) => s.attributes['gen_ai.system']);

  it('by default also emits the deprecated gen_ai.system next to gen_ai.provider.name', async () => {
    sdk = testSdk();
    await twoRoundAgent(sdk).reply('Add.');
    const spans = sdk.spans().filter((s) => !s.name.startsWith('execute_tool'));
    expect(system(spans)).toEqual(spans.map(() => 'openai'));
  });

  it('with gen_ai_latest_experimental emits the latest conventions only, in spans and metrics', async () => {
    const saved = process.env.OTEL_SEMCONV_STABILITY_OPT_IN;
    process.env.OTEL_SEMCONV_STABILITY_OPT_IN = 'http,gen_ai_latest_experimental';
    try {
      sdk = testSdk();
      await twoRoundAgent(sdk).reply('Add.');
    } finally {
      if (saved === undefined) delete process.env.OTEL_SEMCONV_STABILITY_OPT_IN;
      else process.env.OTEL_SEMCONV_STABILITY_OPT_IN = saved;
    }
    expect(system(sdk.spans())).toEqual(sdk.spans().map(() => undefined));
    expect(only(sdk.spans(), 'invoke_agent calc').attributes['gen_ai.provider.name']).toBe('openai');
    for (const name of ['gen_ai.client.token.usage', 'gen_ai.client.operation.duration'])
      for (const p of await sdk.histogram(name)) expect(p.attributes['gen_ai.system']).toBeUndefined();
  });

  it('the latestExperimental option overrides the environment either way', async () => {
    sdk = testSdk();
    await twoRoundAgent(sdk, { latestExperimental: true }).reply('Add.');
    expect(system(sdk.spans())).toEqual(sdk.spans().map(() => undefined));
  });
});

describe('a reply asking for a structured result', () => {
  it('has gen_ai.output.type json on its run span', async () => {
    sdk = testSdk();
    // Stands in for @agentkit/structured-output, which reads the option.
    const reader: Plugin = { name: 'structured-reader', replyOptions: ['structuredSchema'] };
    const agent = new Agent({
      name: 'calc',
      model: new ScriptedModel([textChunks('{"sum":3}'), textChunks('Three.')], { name: 'gpt-5-mini' }),
      plugins: [otel({ tracerProvider: sdk.tracerProvider }), reader],
    });
    await agent.reply('1 + 2 as JSON', { structuredSchema: z.object({ sum: z.number() }) });
    await agent.reply('And now in words?');
    const [structured, plain] = sdk.spans().filter((s) => s.name === 'invoke_agent calc');
    expect(structured!.attributes['gen_ai.output.type']).toBe('json');
    expect(plain!.attributes['gen_ai.output.type']).toBeUndefined();
  });
});

describe('the provider', () => {
  it('is the given name, or what the given function says of the model', async () => {
    sdk = testSdk();
    await twoRoundAgent(sdk, { provider: 'azure.ai.openai' }).reply('Add.');
    expect(only(sdk.spans(), 'invoke_agent calc').attributes['gen_ai.provider.name']).toBe('azure.ai.openai');
    await sdk.shutdown();
    sdk = testSdk();
    await twoRoundAgent(sdk, { provider: (m) => `custom:${m.name}` }).reply('Add.');
    expect(only(sdk.spans(), 'invoke_agent calc').attributes['gen_ai.provider.name']).toBe(
      'custom:gpt-5-mini',
    );
  });

  it('a provider function that names nothing fails when the agent is built, with a ConfigError', () => {
    sdk = testSdk();
    expect(() => twoRoundAgent(sdk, { provider: () => '' as string })).toThrow(
      expect.objectContaining({ code: 'CONFIG', field: 'otel.provider' }),
    );
  });
});
