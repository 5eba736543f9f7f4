import { Agent, defineTool, ModelError, type Plugin } from '@agentkit/core';
import { ScriptedModel, textChunks, toolCallChunk, usageChunk } from '@agentkit/core/testing';
import { SpanStatusCode } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { only, point, type TestSdk, testSdk } from '../test/otel-sdk';
import { otel } from './otel-plugin';

let sdk: TestSdk;
afterEach(async () => {
  await sdk?.shutdown();
});

function agentWith(model: ScriptedModel, extra: Partial<ConstructorParameters<typeof Agent>[0]> = {}) {
  sdk = testSdk();
  return new Agent({
    name: 'ops',
    model,
    ...extra,
    plugins: [
      otel({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider }),
      ...((extra.plugins as Plugin[]) ?? []),
    ],
    logger: { warn() {}, error() {} },
  });
}

describe('a failed model call', () => {
  it('marks the chat span and the run failed with the error class, and measures it with error.type', async () => {
    const model = new ScriptedModel(
      [{ error: new ModelError('rate_limit', 'Too many requests', { status: 429, retryable: false }) }],
      { name: 'gpt-5-mini' },
    );
    const msg = await agentWith(model).reply('Hello');
    expect(msg.finishedReason).toBe('error');

    const chat = only(sdk.spans(), 'chat gpt-5-mini');
    const root = only(sdk.spans(), 'invoke_agent ops');
    for (const span of [chat, root]) {
      expect(span.status).toEqual({ code: SpanStatusCode.ERROR, message: msg.error?.message });
      expect(span.attributes['error.type']).toBe('rate_limit');
    }
    expect(chat.attributes['gen_ai.response.finish_reasons']).toBeUndefined();
    expect(chat.attributes['gen_ai.usage.input_tokens']).toBeUndefined();
    expect(root.attributes['agentkit.reply.finished_reason']).toBe('error');

    const durations = await sdk.histogram('gen_ai.client.operation.duration');
    expect(point(durations, { 'gen_ai.operation.name': 'chat' }).attributes['error.type']).toBe('rate_limit');
    expect(point(durations, { 'gen_ai.operation.name': 'invoke_agent' }).attributes['error.type']).toBe(
      'rate_limit',
    );
    // No usage was reported: no token measurement at all (the conventions forbid guessing).
    expect(await sdk.histogram('gen_ai.client.token.usage')).toEqual([]);
  });

  it('keeps the usage a call reported before its stream broke', async () => {
    const model = new ScriptedModel(
      [
        {
          chunks: [...textChunks('Partial answer'), usageChunk({ inputTokens: 40, outputTokens: 3 })],
          errorAfter: new ModelError('upstream', 'The stream was cut', { retryable: false }),
        },
      ],
      { name: 'gpt-5-mini' },
    );
    const msg = await agentWith(model).reply('Hello');
    expect(msg.finishedReason).toBe('error');
    const chat = only(sdk.spans(), 'chat gpt-5-mini');
    expect(chat.attributes).toMatchObject({
      'error.type': 'upstream',
      'gen_ai.usage.input_tokens': 40,
      'gen_ai.usage.output_tokens': 3,
    });
    expect(chat.status.code).toBe(SpanStatusCode.ERROR);
  });

  it('records nothing of a failure that was retried successfully', async () => {
    const model = new ScriptedModel(
      [{ error: new ModelError('upstream', 'Bad gateway', { status: 502 }) }, textChunks('Hi there')],
      { name: 'gpt-5-mini' },
    );
    const agent = agentWith(model, { modelRetry: { maxRetries: 1, initialDelayMs: 1 } });
    expect((await agent.reply('Hello')).finishedReason).toBe('completed');
    const chat = only(sdk.spans(), 'chat gpt-5-mini');
    expect(chat.status.code).toBe(SpanStatusCode.UNSET);
    expect(chat.attributes['error.type']).toBeUndefined();
    expect(chat.attributes['gen_ai.response.finish_reasons']).toEqual(['stop']);
  });
});

describe('failed tool calls', () => {
  const flaky = defineTool({
    name: 'flaky',
    description: 'Always fails',
    inputSchema: z.object({ n: z.number() }),
    execute: () => {
      throw new Error('disk full');
    },
  });

  it('a tool that throws, invalid input and an unknown tool are tool_error; a denied call is not an error', async () => {
    const model = new ScriptedModel(
      [
        [
          toolCallChunk('flaky', { n: 1 }, 'call_throws'),
          toolCallChunk('flaky', { n: 'one' }, 'call_invalid'),
          toolCallChunk('nope', {}, 'call_unknown'),
          toolCallChunk('flaky', { n: 2 }, 'call_denied'),
        ],
        textChunks('Giving up.'),
      ],
      { name: 'gpt-5-mini' },
    );
    const denyTwo: Plugin = {
      name: 'deny-two',
      hooks: {
        beforeTool: ({ input }) =>
          (input as { n?: unknown }).n === 2 ? { decision: 'deny', message: 'No.' } : undefined,
      },
    };
    const msg = await agentWith(model, { tools: [flaky], plugins: [denyTwo] }).reply('Try');
    expect(msg.finishedReason).toBe('completed');

    const tools = sdk.spans().filter((s) => s.attributes['gen_ai.operation.name'] === 'execute_tool');
    const byId = Object.fromEntries(tools.map((s) => [s.attributes['gen_ai.tool.call.id'], s]));
    expect(Object.keys(byId).sort()).toEqual(['call_denied', 'call_invalid', 'call_throws', 'call_unknown']);
    for (const id of ['call_throws', 'call_invalid', 'call_unknown']) {
      expect(byId[id]!.attributes).toMatchObject({
        'error.type': 'tool_error',
        'agentkit.tool.result_state': 'error',
      });
      expect(byId[id]!.status.code).toBe(SpanStatusCode.ERROR);
    }
    expect(byId.call_unknown!.name).toBe('execute_tool nope');
    expect(byId.call_denied!.attributes['agentkit.tool.result_state']).toBe('denied');
    expect(byId.call_denied!.attributes['error.type']).toBeUndefined();
    expect(byId.call_denied!.status.code).toBe(SpanStatusCode.UNSET);
    // The run itself completed.
    expect(only(sdk.spans(), 'invoke_agent ops').status.code).toBe(SpanStatusCode.UNSET);

    const durations = await sdk.histogram('gen_ai.client.operation.duration');
    // Three calls ran (and failed); the denied one never ran.
    expect(
      point(durations, { 'gen_ai.operation.name': 'execute_tool', 'error.type': 'tool_error' }).value.count,
    ).toBe(3);
    expect(
      durations.filter(
        (p) => p.attributes['gen_ai.operation.name'] === 'execute_tool' && !p.attributes['error.type'],
      ),
    ).toEqual([]);
  });
});

describe('an interrupted reply', () => {
  it('mid-stream: the chat span and the run end as interrupted, without an error status', async () => {
    const controller = new AbortController();
    const model = new ScriptedModel(
      [
        {
          chunks: [...textChunks('one two three four five six'), usageChunk({ inputTokens: 9 })],
          delayMs: 20,
        },
      ],
      { name: 'gpt-5-mini' },
    );
    const agent = agentWith(model);
    for await (const event of agent.replyStream('Count', { signal: controller.signal }))
      if ('type' in event && event.type === 'TEXT_BLOCK_DELTA') controller.abort();
    expect(agent.state.context.at(-1)?.finishedReason).toBe('interrupted');

    const chat = only(sdk.spans(), 'chat gpt-5-mini');
    const root = only(sdk.spans(), 'invoke_agent ops');
    expect(root.attributes['agentkit.reply.finished_reason']).toBe('interrupted');
    for (const span of [chat, root]) {
      expect(span.status.code).toBe(SpanStatusCode.UNSET);
      expect(span.attributes['error.type']).toBeUndefined();
    }
    expect(chat.attributes['gen_ai.response.finish_reasons']).toBeUndefined();
    expect(chat.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
  });

  it('during a tool call: the tool span ends interrupted when the tool gives up', async () => {
    const controller = new AbortController();
    const slow = defineTool({
      name: 'slow',
      description: 'Waits for the signal',
      inputSchema: z.object({}),
      execute: (_input, { signal }) =>
        new Promise<string>((_resolve, reject) => {
          signal.addEventListener('abort', () => reject(signal.reason), { once: true });
          setTimeout(() => controller.abort(), 1);
        }),
    });
    const model = new ScriptedModel([[toolCallChunk('slow', {}, 'call_slow')]], { name: 'gpt-5-mini' });
    const msg = await agentWith(model, { tools: [slow] }).reply('Go', { signal: controller.signal });
    expect(msg.finishedReason).toBe('interrupted');
    const tool = only(sdk.spans(), 'execute_tool slow');
    expect(tool.attributes['agentkit.tool.result_state']).toBe('interrupted');
    expect(tool.status.code).toBe(SpanStatusCode.UNSET);
    expect(only(sdk.spans(), 'chat gpt-5-mini').attributes['gen_ai.response.finish_reasons']).toEqual([
      'tool_call',
    ]);
  });
});
