import {
  Agent,
  awaitingToolCalls,
  defineTool,
  externalExecutionResult,
  userConfirmResult,
  userInterrupt,
} from '@agentkit/core';
import { ScriptedModel, textChunks, toolCallChunk } from '@agentkit/core/testing';
import { SpanStatusCode } from '@opentelemetry/api';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { only, type TestSdk, testSdk } from '../test/otel-sdk';
import { OTEL_PLUGIN_NAME, otel } from './otel-plugin';
import type { OtelOptions } from './otel-options';

const deploy = defineTool({
  name: 'deploy',
  description: 'Deploy a service',
  inputSchema: z.object({ service: z.string() }),
  needsConfirmation: true,
  execute: ({ service }) => `deployed ${service}`,
});
const lookup = defineTool({
  name: 'lookup',
  description: 'Looked up by the caller',
  inputSchema: z.object({ key: z.string() }),
  external: true,
});

let sdks: TestSdk[] = [];
afterEach(async () => {
  await Promise.all(sdks.map((s) => s.shutdown()));
  sdks = [];
});

/**
 * An agent whose model asks for a confirmed deploy and an external lookup (it pauses for each), and a
 * builder of agents on another SDK that load its state (their model gives the final answer).
 */
function pausingPair(options: OtelOptions = {}) {
  const first = testSdk();
  const second = testSdk();
  sdks.push(first, second);
  const build = (sdk: TestSdk, state?: string) =>
    new Agent({
      name: 'ops',
      model: new ScriptedModel(
        state
          ? [textChunks('Done.')]
          : [
              [
                toolCallChunk('deploy', { service: 'billing' }, 'call_deploy'),
                toolCallChunk('lookup', { key: 'region' }, 'call_lookup'),
              ],
            ],
        { name: 'gpt-5-mini' },
      ),
      tools: [deploy, lookup],
      state,
      plugins: [otel({ tracerProvider: sdk.tracerProvider, meterProvider: sdk.meterProvider, ...options })],
    });
  return { first, second, build };
}

describe('a paused reply', () => {
  it('ends its run at the pause, with the awaited calls ending as asking', async () => {
    const { first, build } = pausingPair();
    const agent = build(first);
    const paused = await agent.reply('Deploy billing');
    expect(paused.finishedReason).toBeNull();
    const root = only(first.spans(), 'invoke_agent ops');
    expect(root.attributes['agentkit.reply.finished_reason']).toBe('paused');
    expect(root.status.code).toBe(SpanStatusCode.UNSET);
    const call = only(first.spans(), 'execute_tool deploy');
    expect(call.attributes['agentkit.tool.call.state']).toBe('asking');
    // The run's context is in the state that goes to the store.
    const saved = JSON.parse(JSON.stringify(agent.state));
    expect(saved.reply.data[OTEL_PLUGIN_NAME].traceparent).toBe(
      `00-${root.spanContext().traceId}-${root.spanContext().spanId}-01`,
    );
  });

  it('resumed by another agent: a new run, linked to the paused one, in the trace where it resumes', async () => {
    const { first, second, build } = pausingPair();
    const agent = build(first);
    await agent.reply('Deploy billing');
    const pausedRun = only(first.spans(), 'invoke_agent ops').spanContext();

    const resumed = build(second, JSON.stringify(agent.state));
    const [call] = awaitingToolCalls(resumed.state);
    let msg = await resumed.reply(userConfirmResult([{ confirmed: true, toolCall: call! }]));
    // Still waiting for the external lookup.
    expect(msg.finishedReason).toBeNull();
    msg = await resumed.reply(
      externalExecutionResult([{ id: 'call_lookup', output: 'eu-west-1', state: 'success' }]),
    );
    expect(msg.finishedReason).toBe('completed');

    const runs = second.spans().filter((s) => s.name === 'invoke_agent ops');
    expect(runs).toHaveLength(2);
    const [confirmRun, externalRun] = runs as [(typeof runs)[0], (typeof runs)[0]];
    expect(confirmRun.links.map((l) => l.context.spanId)).toEqual([pausedRun.spanId]);
    expect(confirmRun.links[0]!.context.traceId).toBe(pausedRun.traceId);
    expect(confirmRun.spanContext().traceId).not.toBe(pausedRun.traceId);
    // Each resumption links to the run that paused just before it.
    expect(externalRun.links.map((l) => l.context.spanId)).toEqual([confirmRun.spanContext().spanId]);

    // The confirmed call ran in the first resumed run; the external result arrived in the second.
    const executed = only(second.spans(), 'execute_tool deploy');
    expect(executed.parentSpanContext?.spanId).toBe(confirmRun.spanContext().spanId);
    expect(executed.attributes['agentkit.tool.result_state']).toBe('success');
    const external = second.spans().filter((s) => s.name === 'execute_tool lookup');
    expect(external.at(-1)!.attributes).toMatchObject({
      'agentkit.tool.external': true,
      'agentkit.tool.result_state': 'success',
    });
    expect(external.at(-1)!.parentSpanContext?.spanId).toBe(externalRun.spanContext().spanId);
    expect(only(second.spans(), 'chat gpt-5-mini').parentSpanContext?.spanId).toBe(
      externalRun.spanContext().spanId,
    );
    // An external call is not an operation of this process: no duration for it.
    const durations = await second.histogram('gen_ai.client.operation.duration');
    const toolPoint = durations.find((p) => p.attributes['gen_ai.operation.name'] === 'execute_tool');
    expect(toolPoint?.value.count).toBe(1);
  });

  it("with resume: 'parent', the resumed run continues the paused run's trace as its child", async () => {
    const { first, second, build } = pausingPair({ resume: 'parent' });
    const agent = build(first);
    await agent.reply('Deploy billing');
    const pausedRun = only(first.spans(), 'invoke_agent ops').spanContext();
    const resumed = build(second, JSON.stringify(agent.state));
    const [call] = awaitingToolCalls(resumed.state);
    await resumed.reply(userConfirmResult([{ confirmed: false, toolCall: call! }]));
    const run = only(second.spans(), 'invoke_agent ops');
    expect(run.spanContext().traceId).toBe(pausedRun.traceId);
    expect(run.parentSpanContext).toMatchObject({ spanId: pausedRun.spanId, isRemote: true });
    expect(run.links).toEqual([]);
    expect(only(second.spans(), 'execute_tool deploy').attributes['agentkit.tool.result_state']).toBe(
      'denied',
    );
  });

  it('ended by an interrupt: a run of its own, linked to the paused one, ends as interrupted', async () => {
    const { first, second, build } = pausingPair();
    const agent = build(first);
    await agent.reply('Deploy billing');
    const pausedRun = only(first.spans(), 'invoke_agent ops').spanContext();
    const resumed = build(second, JSON.stringify(agent.state));
    const msg = await resumed.reply(userInterrupt());
    expect(msg.finishedReason).toBe('interrupted');
    const run = only(second.spans(), 'invoke_agent ops');
    expect(run.links.map((l) => l.context.spanId)).toEqual([pausedRun.spanId]);
    expect(run.attributes['agentkit.reply.finished_reason']).toBe('interrupted');
    expect(run.status.code).toBe(SpanStatusCode.UNSET);
  });

  it('a stored trace context that is not one is ignored: the resumed run simply has no link', async () => {
    const { first, second, build } = pausingPair();
    const agent = build(first);
    await agent.reply('Deploy billing');
    const state = JSON.parse(JSON.stringify(agent.state));
    state.reply.data[OTEL_PLUGIN_NAME] = { traceparent: 'garbage' };
    const resumed = build(second, JSON.stringify(state));
    const [call] = awaitingToolCalls(resumed.state);
    await resumed.reply(userConfirmResult([{ confirmed: true, toolCall: call! }]));
    const run = only(second.spans(), 'invoke_agent ops');
    expect(run.links).toEqual([]);
    expect(run.parentSpanContext).toBeUndefined();
  });
});
