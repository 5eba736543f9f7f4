// Limits against a hostile model (issue 20, item 7): each one hit is recorded where the model sees it,
// and the reply goes on.
import { describe, expect, it } from 'vitest';
import { Agent } from './agent';
import { DEFAULT_AGENT_LIMITS } from './agent-limits';
import type { ToolCallBlock, ToolResultBlock } from './blocks';
import { defineTool } from './define-tool';
import { ConfigError } from './errors/config-error';
import { ModelError } from './errors/model-error';
import type { AgentEvent } from './events';
import type { ChatModel, ModelChunk } from './model';
import { getText, type Msg } from './msg';
import { definePlugin } from './plugin';
import { toProviderTurns } from './provider-turns';
import { replayEvents } from './replay-events';
import { ScriptedModel, textChunks, toolCallChunk } from './testing/scripted-model';

const resultsOf = (msg: Msg) => msg.content.filter((b): b is ToolResultBlock => b.type === 'tool_result');
const callsOf = (msg: Msg) => msg.content.filter((b): b is ToolCallBlock => b.type === 'tool_call');
const resultText = (r: ToolResultBlock) => r.output.map((b) => (b.type === 'text' ? b.text : '')).join('');

async function collect(agent: Agent, input: string) {
  const events: AgentEvent[] = [];
  let msg: Msg | undefined;
  for await (const item of agent.replyStream(input, { yieldFinalMsg: true }))
    if ('type' in item) events.push(item);
    else msg = item;
  return { events, msg: msg! };
}

/** A concurrency-safe tool that records how many of its calls run at once. */
function gauge() {
  const stats = { running: 0, most: 0, ran: 0 };
  const tool = defineTool({
    name: 'probe',
    description: 'probe',
    inputSchema: { type: 'object' },
    concurrencySafe: true,
    async execute() {
      stats.most = Math.max(stats.most, ++stats.running);
      await new Promise((resolve) => setTimeout(resolve, 1));
      stats.running--;
      stats.ran++;
      return 'ok';
    },
  });
  return { tool, stats };
}

describe('limits against a hostile model', () => {
  it('5,000 tool calls in one response: 64 run, 8 at a time; the rest get error results', async () => {
    const { tool, stats } = gauge();
    const calls = Array.from({ length: 5000 }, (_, i) => toolCallChunk('probe', {}, `c${i}`));
    const model = new ScriptedModel([calls, textChunks('fewer next time')]);
    const agent = new Agent({ name: 'a', model, tools: [tool] });
    const { events, msg } = await collect(agent, 'go');
    expect(msg.finishedReason).toBe('completed');
    expect(stats).toEqual({ running: 0, most: DEFAULT_AGENT_LIMITS.maxParallelToolCalls, ran: 64 });
    const results = resultsOf(msg);
    expect(results).toHaveLength(5000);
    const refused = results.filter((r) => r.state === 'error');
    expect(refused).toHaveLength(5000 - 64);
    expect(resultText(refused[0]!)).toMatch(/a response may make at most 64 tool calls/);
    expect(refused.map((r) => r.id)).toEqual(calls.slice(64).map((c) => (c as { id: string }).id));
    // The model sees every call answered (providers reject a call without a result).
    const turns = toProviderTurns(model.requests[1]!.messages);
    expect(turns.filter((t) => t.role === 'tool').flatMap((t) => t.results)).toHaveLength(5000);
    expect(replayEvents(events)).toEqual(msg);
  });

  it('limits are options: fewer parallel calls, fewer calls per response', async () => {
    const { tool, stats } = gauge();
    const calls = Array.from({ length: 10 }, (_, i) => toolCallChunk('probe', {}, `c${i}`));
    const model = new ScriptedModel([calls, textChunks('ok')]);
    const limits = { maxParallelToolCalls: 2, maxToolCallsPerResponse: 5 };
    const msg = await new Agent({ name: 'a', model, tools: [tool], limits }).reply('go');
    expect(stats).toEqual({ running: 0, most: 2, ran: 5 });
    expect(resultsOf(msg).map((r) => r.state)).toEqual([
      ...Array(5).fill('error'),
      ...Array(5).fill('success'),
    ]);
  });

  it('an argument of 8 MB is never held: the call gets an error result and keeps no input', async () => {
    let ran = false;
    const write = defineTool({
      name: 'write',
      description: 'write',
      inputSchema: { type: 'object', properties: { text: { type: 'string', maxLength: 10 } } },
      execute: () => {
        ran = true;
        return 'written';
      },
    });
    const chunk = 'x'.repeat(64 * 1024);
    const huge: ModelChunk[] = [{ type: 'tool_call', id: 'c1', name: 'write', delta: '{"text":"' }];
    for (let i = 0; i < 128; i++) huge.push({ type: 'tool_call', id: 'c1', delta: chunk });
    huge.push({ type: 'tool_call', id: 'c1', delta: '"}' }, toolCallChunk('write', { text: 'short' }, 'c2'));
    const model = new ScriptedModel([huge, textChunks('sent less')]);
    const agent = new Agent({ name: 'a', model, tools: [write], limits: { maxToolInputChars: 100_000 } });
    const { events, msg } = await collect(agent, 'go');
    expect(msg.finishedReason).toBe('completed');
    const streamed = events
      .filter((e) => e.type === 'TOOL_CALL_DELTA' && e.toolCallId === 'c1')
      .reduce((n, e) => n + (e as { delta: string }).delta.length, 0);
    expect(streamed).toBe(100_001);
    expect(callsOf(msg).map((c) => c.input)).toEqual(['', '{"text":"short"}']);
    const [big, small] = resultsOf(msg);
    expect(big).toMatchObject({ state: 'error' });
    expect(resultText(big!)).toMatch(/its arguments exceeded the limit of 100000 characters/);
    expect(small).toMatchObject({ state: 'success' });
    expect(ran).toBe(true);
    expect(JSON.stringify(agent.state).length).toBeLessThan(10_000);
    expect(replayEvents(events)).toEqual(msg);
  });

  it('a response past maxResponseChars is cut off: its calls do not run, a hint tells the model', async () => {
    const { tool, stats } = gauge();
    const flood: ModelChunk[] = [
      toolCallChunk('probe', {}, 'c1'),
      ...Array.from({ length: 100 }, () => ({ type: 'text', delta: 'y'.repeat(1000) }) as ModelChunk),
    ];
    const model = new ScriptedModel([flood, textChunks('short answer')]);
    const agent = new Agent({ name: 'a', model, tools: [tool], limits: { maxResponseChars: 10_000 } });
    const { events, msg } = await collect(agent, 'go');
    expect(msg.finishedReason).toBe('completed');
    expect(stats.ran).toBe(0);
    expect(events.filter((e) => e.type === 'MODEL_CALL_END').map((e) => e.finishedReason)).toEqual([
      'error',
      'completed',
    ]);
    const [result] = resultsOf(msg);
    expect(result).toMatchObject({ id: 'c1', state: 'error' });
    expect(resultText(result!)).toMatch(/Your response was cut off/);
    const hint = msg.content.find((b) => b.type === 'hint');
    expect(hint).toMatchObject({
      source: 'agentkit',
      hint: expect.stringMatching(/exceeded the limit of 10000/),
    });
    // What was streamed before the cut is kept (under the limit); the model saw the hint and answered.
    const kept = msg.content.filter((b) => b.type === 'text').map((b) => (b as { text: string }).text);
    expect(kept[0]!.length).toBeLessThanOrEqual(10_000);
    expect(kept.at(-1)).toBe('short answer');
    expect(getText(model.requests[1]!.messages.at(-1)!)).toContain('y');
    expect(replayEvents(events)).toEqual(msg);
  });

  it('agent.streamModel (a manual compression between replies) holds maxResponseChars as well', async () => {
    let closed = false;
    const model: ChatModel = {
      name: 'flooding',
      contextSize: 1000,
      async *stream() {
        try {
          for (let i = 0; i < 100; i++) yield { type: 'text', delta: 'w'.repeat(1000) };
        } finally {
          closed = true;
        }
      },
    };
    const agent = new Agent({ name: 'a', model, limits: { maxResponseChars: 10_000 } });
    let text = '';
    const request = { systemPrompt: 's', messages: [], tools: [], toolChoice: 'auto' as const };
    const failure = await (async () => {
      for await (const chunk of agent.streamModel(request)) if (chunk.type === 'text') text += chunk.delta;
    })().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ModelError);
    expect((failure as ModelError).message).toMatch(/exceeded 10000 characters/);
    expect(text.length).toBe(10_000);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(closed).toBe(true);
  });

  it('empty blocks carrying provider data count towards maxResponseChars (they grew the message without bound)', async () => {
    const flood: ModelChunk[] = Array.from({ length: 100_000 }, () => ({
      type: 'thinking',
      delta: '',
      newBlock: true,
      providerData: { signature: 's'.repeat(100) },
    }));
    const model = new ScriptedModel([flood, textChunks('short answer')]);
    const agent = new Agent({ name: 'a', model, limits: { maxResponseChars: 100_000 } });
    const { events, msg } = await collect(agent, 'go');
    expect(msg.finishedReason).toBe('completed');
    // 100k empty thinking blocks used to be kept (18 MB); at ~190 characters each, 100k characters hold ~530.
    expect(msg.content.filter((b) => b.type === 'thinking').length).toBeLessThan(600);
    expect(msg.content.some((b) => b.type === 'hint')).toBe(true);
    expect(getText(msg)).toBe('short answer');
    expect(replayEvents(events)).toEqual(msg);
  });

  it('a runaway response of 100k calls with empty arguments is cut off past 100 × maxToolCallsPerResponse calls', async () => {
    // Empty arguments cost no characters; each call past the limit still needs its error result, and the
    // result of each was found by a scan of the message: 100k calls took five minutes.
    const { tool, stats } = gauge();
    const flood: ModelChunk[] = Array.from({ length: 100_000 }, (_, i) => ({
      type: 'tool_call',
      id: `c${i}`,
      name: 'probe',
      delta: '',
    }));
    const model = new ScriptedModel([flood, textChunks('fewer calls')]);
    const agent = new Agent({ name: 'a', model, tools: [tool], limits: { maxToolCallsPerResponse: 5 } });
    const started = performance.now();
    const { events, msg } = await collect(agent, 'go');
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(msg.finishedReason).toBe('completed');
    expect(stats.ran).toBe(0);
    expect(callsOf(msg)).toHaveLength(500);
    expect(resultsOf(msg).every((r) => r.state === 'error')).toBe(true);
    const hint = msg.content.find((b) => b.type === 'hint');
    expect(hint).toMatchObject({
      hint: expect.stringMatching(/exceeded the limit of 500 tool calls per response/),
    });
    expect(getText(msg)).toBe('fewer calls');
    expect(replayEvents(events)).toEqual(msg);
  });

  it('data and tool arguments count towards maxResponseChars too', async () => {
    const data: ModelChunk[] = Array.from({ length: 40 }, () => ({
      type: 'data',
      mediaType: 'image/png',
      data: 'AAAA'.repeat(250),
    }));
    const args: ModelChunk[] = [
      { type: 'tool_call', id: 'c1', name: 'probe', delta: '{"a":"' },
      ...Array.from(
        { length: 40 },
        () => ({ type: 'tool_call', id: 'c1', delta: 'z'.repeat(1000) }) as ModelChunk,
      ),
    ];
    for (const flood of [data, args]) {
      const { tool, stats } = gauge();
      const model = new ScriptedModel([flood, textChunks('ok')]);
      const agent = new Agent({ name: 'a', model, tools: [tool], limits: { maxResponseChars: 10_000 } });
      const { events, msg } = await collect(agent, 'go');
      expect(msg.finishedReason).toBe('completed');
      expect(stats.ran).toBe(0);
      expect(msg.content.some((b) => b.type === 'hint')).toBe(true);
      expect(JSON.stringify(msg).length).toBeLessThan(15_000);
      expect(replayEvents(events)).toEqual(msg);
    }
  });

  it("a plugin's model call (a summary) past maxResponseChars is cut off too: the plugin gets a ModelError, the provider's stream is closed", async () => {
    let closed = false;
    // Floods the plugin's call (system prompt 'summarise'); answers the reply's own call.
    const model: ChatModel = {
      name: 'flooding',
      contextSize: 1000,
      async *stream(request) {
        if (request.systemPrompt !== 'summarise') return yield* textChunks('answer');
        try {
          for (let i = 0; i < 100; i++)
            yield { type: 'tool_call', id: 's1', name: 'Summary', delta: 'w'.repeat(1000) };
        } finally {
          closed = true;
        }
      },
    };
    let failure: unknown;
    let seen = 0;
    const summariser = definePlugin({
      name: 'summariser',
      hooks: {
        beforeInference: async ({ ctx }) => {
          if (ctx.getReplyData()) return;
          ctx.setReplyData(true);
          const request = { systemPrompt: 'summarise', messages: [], tools: [], toolChoice: 'auto' as const };
          try {
            for await (const chunk of ctx.streamModel(request)) seen += chunk.type === 'tool_call' ? 1 : 0;
          } catch (error) {
            failure = error;
          }
        },
      },
    });
    const agent = new Agent({
      name: 'a',
      model,
      plugins: [summariser],
      limits: { maxResponseChars: 10_000 },
    });
    const { events, msg } = await collect(agent, 'go');
    expect(msg.finishedReason).toBe('completed');
    expect(failure).toBeInstanceOf(ModelError);
    expect((failure as ModelError).errorType).toBe('upstream');
    expect((failure as ModelError).message).toMatch(/exceeded 10000 characters/);
    expect(seen).toBe(10);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(closed).toBe(true);
    const ends = events.filter((e) => e.type === 'MODEL_CALL_END');
    expect(ends[0]).toMatchObject({ plugin: 'summariser', finishedReason: 'error' });
    expect(replayEvents(events)).toEqual(msg);
  });

  it('must be integers ≥ 1', () => {
    const model = new ScriptedModel([]);
    for (const limits of [
      { maxParallelToolCalls: 0 },
      { maxToolInputChars: 1.5 },
      { maxResponseChars: -1 },
      5,
    ])
      expect(() => new Agent({ name: 'a', model, limits: limits as never })).toThrow(ConfigError);
  });
});
