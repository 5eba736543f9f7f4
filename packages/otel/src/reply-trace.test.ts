import { createAgentState, createMsg, emptyUsage, type PluginContext } from '@agentkit/core';
import { ScriptedModel } from '@agentkit/core/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { only, point, type TestSdk, testSdk } from '../test/otel-sdk';
import { GenAiMetrics } from './genai-metrics';
import { ReplyTrace, type TraceSettings } from './reply-trace';

let sdk: TestSdk;
afterEach(async () => {
  await sdk?.shutdown();
});

/** The parts of a plugin context a reply trace reads, for a reply that has just started. */
function replyContext(): PluginContext {
  const state = createAgentState({ sessionId: 'session-1' });
  const msg = createMsg({ role: 'assistant', name: 'bot', content: [], id: 'reply-1' });
  state.context.push(msg);
  state.reply = { id: 'reply-1', iteration: 0, data: {}, finish: null };
  return {
    agentName: 'bot',
    systemPrompt: '',
    model: new ScriptedModel([], { name: 'gpt-5-mini' }),
    state,
    reply: state.reply,
    getReplyData: () => state.reply!.data.x,
    setReplyData: (value: never) => {
      state.reply!.data.x = value;
    },
  } as unknown as PluginContext;
}

describe('ReplyTrace.modelCallEnds', () => {
  it('takes the answering model and the finish reasons from the outcome when a hook reports them', async () => {
    sdk = testSdk();
    const settings: TraceSettings = {
      tracer: sdk.tracerProvider.getTracer('test'),
      metrics: new GenAiMetrics(sdk.meterProvider, { name: 'test', version: '0', schemaUrl: '' }),
      provider: () => 'openai',
      captureContent: false,
      legacyAttributes: false,
      resume: 'link',
    };
    const ctx = replyContext();
    const run = new ReplyTrace(settings, ctx, { kind: 'new', messages: [] });
    run.modelCallStarts(ctx, { systemPrompt: '', messages: [], tools: [], toolChoice: 'auto' });
    run.modelCallEnds({
      usage: { ...emptyUsage(), inputTokens: 30, outputTokens: 4096 },
      output: [],
      responseModel: 'gpt-5-mini-2026-08-07',
      finishReasons: ['length'],
    });
    run.ended(ctx, ctx.state.context[0]!, 'completed');

    const chat = only(sdk.spans(), 'chat gpt-5-mini');
    expect(chat.attributes).toMatchObject({
      'gen_ai.request.model': 'gpt-5-mini',
      'gen_ai.response.model': 'gpt-5-mini-2026-08-07',
      'gen_ai.response.finish_reasons': ['length'],
      'gen_ai.usage.output_tokens': 4096,
    });
    const usage = await sdk.histogram('gen_ai.client.token.usage');
    expect(point(usage, { 'gen_ai.token.type': 'output' }).attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-5-mini',
      'gen_ai.response.model': 'gpt-5-mini-2026-08-07',
      'gen_ai.token.type': 'output',
    });
  });
});
