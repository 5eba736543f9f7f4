import { Agent, defineTool } from '@agentkit/core';
import { ScriptedModel, textChunks, toolCallChunk, usageChunk } from '@agentkit/core/testing';
import { context, metrics, type Tracer, type TracerProvider, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { only, type TestSdk, testSdk } from '../test/otel-sdk';
import { OTEL_PLUGIN_NAME, otel } from './otel-plugin';

const add = defineTool({
  name: 'add',
  description: 'Add two numbers',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});
const script = () =>
  new ScriptedModel(
    [
      [toolCallChunk('add', { a: 1, b: 2 }), usageChunk({ inputTokens: 10, outputTokens: 2 })],
      [...textChunks('3'), usageChunk({ inputTokens: 12, outputTokens: 1 })],
    ],
    { name: 'gpt-5-mini' },
  );

let sdk: TestSdk | undefined;
afterEach(async () => {
  trace.disable();
  metrics.disable();
  context.disable();
  await sdk?.shutdown();
  sdk = undefined;
});

describe('the global providers', () => {
  it('without an SDK the plugin installs no hooks: the reply runs as without it, the state holds nothing of it', async () => {
    const plugin = otel();
    expect(plugin.hooks).toBeUndefined();
    const agent = new Agent({ name: 'calc', model: script(), tools: [add], plugins: [plugin] });
    const msg = await agent.reply('1 + 2?');
    expect(msg.finishedReason).toBe('completed');
    expect(agent.state.reply?.data).toEqual({});
    expect(agent.state.reply?.data[OTEL_PLUGIN_NAME]).toBeUndefined();
  });

  it('an SDK registered after the plugin was made is used by the agents built after it', async () => {
    const plugin = otel();
    const before = new Agent({ name: 'early', model: script(), tools: [add], plugins: [plugin] });
    sdk = testSdk();
    trace.setGlobalTracerProvider(sdk.tracerProvider);
    metrics.setGlobalMeterProvider(sdk.meterProvider);
    const agent = new Agent({ name: 'calc', model: script(), tools: [add], plugins: [plugin] });
    await agent.reply('1 + 2?');
    await before.reply('1 + 2?');
    expect(sdk.spans().map((s) => s.name)).toEqual([
      'chat gpt-5-mini',
      'execute_tool add',
      'chat gpt-5-mini',
      'invoke_agent calc',
    ]);
    const usage = await sdk.histogram('gen_ai.client.token.usage');
    expect(usage.map((p) => p.value.sum).sort()).toEqual([22, 3]);
  });

  it('a meter provider alone is enough to install the hooks (metrics without traces)', async () => {
    sdk = testSdk();
    metrics.setGlobalMeterProvider(sdk.meterProvider);
    const agent = new Agent({ name: 'calc', model: script(), tools: [add], plugins: [otel()] });
    await agent.reply('1 + 2?');
    expect(sdk.spans()).toEqual([]);
    const durations = await sdk.histogram('gen_ai.client.operation.duration');
    expect(durations.map((p) => [p.attributes['gen_ai.operation.name'], p.value.count]).sort()).toEqual([
      ['chat', 2],
      ['execute_tool', 1],
      ['invoke_agent', 1],
    ]);
  });

  it('a reply started inside an active span becomes its child', async () => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    sdk = testSdk();
    trace.setGlobalTracerProvider(sdk.tracerProvider);
    const agent = new Agent({ name: 'calc', model: script(), tools: [add], plugins: [otel()] });
    const tracer = trace.getTracer('app');
    await tracer.startActiveSpan('POST /chat', async (request) => {
      await agent.reply('1 + 2?');
      request.end();
    });
    const request = only(sdk.spans(), 'POST /chat');
    const run = only(sdk.spans(), 'invoke_agent calc');
    expect(run.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(run.spanContext().traceId).toBe(request.spanContext().traceId);
  });

  it('a tracer that throws never breaks the reply: the failure is logged and the reply goes on', async () => {
    const broken: TracerProvider = {
      getTracer: () =>
        ({
          startSpan() {
            throw new Error('exporter misconfigured');
          },
        }) as unknown as Tracer,
    };
    const errors: unknown[][] = [];
    const agent = new Agent({
      name: 'calc',
      model: script(),
      tools: [add],
      plugins: [otel({ tracerProvider: broken })],
      logger: { warn() {}, error: (...args) => errors.push(args) },
    });
    const msg = await agent.reply('1 + 2?');
    expect(msg.finishedReason).toBe('completed');
    expect(errors).toHaveLength(1);
    expect(String(errors[0]![0])).toContain("tracing failed in 'beforeReply'");
  });
});
