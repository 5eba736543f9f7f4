// A model adapter passes a provider's JSON on, and a third-party one may have bugs: usage counters that
// are not counts, ids and names that are not strings, events of the wrong shape off the wire. None of it
// may corrupt the saved state (it must load again) or make the reducer throw.
import { describe, expect, it } from 'vitest';
import { Agent } from './agent';
import type { ToolCallBlock } from './blocks';
import { defineTool } from './define-tool';
import type { AgentEvent } from './events';
import type { ModelChunk } from './model';
import type { Msg } from './msg';
import { definePlugin } from './plugin';
import { applyEvent, replayEvents } from './replay-events';
import { parseAgentState } from './state';
import { ScriptedModel, textChunks } from './testing/scripted-model';

const quiet = { warn() {}, error() {} };
const echo = defineTool({
  name: 'echo',
  description: 'echoes',
  inputSchema: { type: 'object' },
  execute: (input) => JSON.stringify(input),
});

async function run(agent: Agent) {
  const events: AgentEvent[] = [];
  let msg: Msg | undefined;
  for await (const item of agent.replyStream('go', { yieldFinalMsg: true }))
    if ('type' in item) events.push(item);
    else msg = item;
  return { events, msg: msg! };
}

/** A usage chunk exactly as given (the testing kit's `usageChunk` would normalise it). */
const rawUsage = (usage: Record<string, unknown>) => ({ type: 'usage', usage }) as unknown as ModelChunk;

describe("a model's usage counters", () => {
  it('that are NaN, negative, infinite, strings or missing count as 0 (capped when huge): the state loads again', async () => {
    const side = definePlugin({
      name: 'side',
      hooks: {
        beforeInference: async ({ ctx }) => {
          if (ctx.getReplyData()) return;
          ctx.setReplyData(true);
          const request = { systemPrompt: 's', messages: [], tools: [], toolChoice: 'auto' as const };
          for await (const _ of ctx.streamModel(request));
        },
      },
    });
    const model = new ScriptedModel([
      [...textChunks('side'), rawUsage({ inputTokens: Number.NaN, outputTokens: '12' })],
      [
        ...textChunks('hi'),
        rawUsage({
          inputTokens: -5,
          outputTokens: 1e308,
          cacheInputTokens: Number.POSITIVE_INFINITY,
          reasoningTokens: null,
        }),
      ],
    ]);
    const agent = new Agent({ name: 'a', model, plugins: [side], logger: quiet });
    const { events, msg } = await run(agent);
    expect(msg.finishedReason).toBe('completed');
    expect(msg.usage).toEqual({
      inputTokens: 0,
      outputTokens: Number.MAX_SAFE_INTEGER,
      cacheInputTokens: Number.MAX_SAFE_INTEGER,
      cacheCreationInputTokens: 0,
      reasoningTokens: 0,
    });
    expect(() => parseAgentState(JSON.stringify(agent.state))).not.toThrow();
    expect(replayEvents(events)).toEqual(msg);
  });

  it('a usage chunk without a record is no usage, not a crash', async () => {
    const model = new ScriptedModel([[...textChunks('hi'), { type: 'usage', usage: null } as never]]);
    const msg = await new Agent({ name: 'a', model, logger: quiet }).reply('go');
    expect(msg.finishedReason).toBe('completed');
    expect(msg.usage?.inputTokens).toBe(0);
  });
});

describe("a model's malformed chunks", () => {
  const cases: Array<[string, unknown]> = [
    ['a numeric call id', { type: 'tool_call', id: 5, name: 'echo', delta: '{}' }],
    ['a numeric tool name', { type: 'tool_call', id: 'c1', name: 5, delta: '{}' }],
    ['arguments that are an object', { type: 'tool_call', id: 'c1', name: 'echo', delta: { a: 1 } }],
    ['a text delta that is a number', { type: 'text', delta: 5 }],
    ['a data chunk without a media type', { type: 'data', data: 'AAAA' }],
    ['null', null],
  ];
  for (const [label, chunk] of cases)
    it(`${label} ends the reply with a recorded upstream error; the state loads again`, async () => {
      const model = new ScriptedModel([[...textChunks('so '), chunk as ModelChunk]]);
      const agent = new Agent({ name: 'a', model, tools: [echo], logger: quiet });
      const { events, msg } = await run(agent);
      expect(msg.finishedReason).toBe('error');
      expect(msg.error).toEqual({ type: 'upstream', message: 'The model sent a malformed response chunk.' });
      expect(() => parseAgentState(JSON.stringify(agent.state))).not.toThrow();
      expect(replayEvents(events)).toEqual(msg);
    });

  it('calls with empty ids get fresh, distinct ids', async () => {
    const call = (x: number): ModelChunk => ({
      type: 'tool_call',
      id: '',
      name: 'echo',
      delta: `{"x":${x}}`,
    });
    const model = new ScriptedModel([[call(1)], [call(2)], textChunks('done')]);
    const agent = new Agent({ name: 'a', model, tools: [echo], logger: quiet });
    const msg = await agent.reply('go');
    const ids = msg.content.filter((b): b is ToolCallBlock => b.type === 'tool_call').map((b) => b.id);
    expect(ids).toHaveLength(2);
    expect(ids.every((id) => /^call_./.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(2);
  });
});

describe('applyEvent with events of the wrong shape (off the wire)', () => {
  it('skips them with a warning and never throws', () => {
    const bad: unknown[] = [
      null,
      5,
      'TEXT_BLOCK_DELTA',
      { type: 'MODEL_CALL_END', replyId: 'r', usage: null },
      { type: 'MODEL_CALL_END', replyId: 'r' },
      { type: 'REQUIRE_USER_CONFIRM', replyId: 'r' },
      { type: 'REQUIRE_EXTERNAL_EXECUTION', replyId: 'r', toolCalls: [null] },
      { type: 'USER_CONFIRM_RESULT', replyId: 'r', confirmResults: [null] },
    ];
    const start = {
      type: 'REPLY_START',
      replyId: 'r',
      name: 'a',
      role: 'assistant',
      createdAt: 't',
    } as const;
    const warnings: string[] = [];
    let msg = applyEvent(null, start as AgentEvent);
    for (const event of bad) msg = applyEvent(msg, event as AgentEvent, (m) => warnings.push(m));
    expect(warnings.filter((w) => w === 'malformed event skipped').length).toBeGreaterThanOrEqual(6);
    // Usage with counters that are not counts adds nothing.
    msg = applyEvent(msg, {
      type: 'MODEL_CALL_END',
      replyId: 'r',
      usage: { inputTokens: 'x', outputTokens: 2 },
      finishedReason: 'completed',
      createdAt: 't',
    } as never);
    expect(msg?.usage).toMatchObject({ inputTokens: 0, outputTokens: 2 });
  });
});
