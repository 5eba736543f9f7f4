import { describe, expect, it } from 'vitest';
import { Agent } from './agent';
import type { AgentEvent } from './events';
import { getText, userMsg } from './msg';
import { defineTool } from './define-tool';
import { ScriptedModel, textChunks, thinkingChunk, toolCallChunk } from './testing/scripted-model';
import type { ModelChunk } from './model';
import { userConfirmResult } from './events';

const schema = { type: 'object', properties: { x: { type: 'number' } } };
const tool = (name: string, concurrencySafe: boolean) =>
  defineTool({
    name,
    description: name,
    inputSchema: schema,
    concurrencySafe,
    execute: ({ x }: { x?: number }) => `${name}:${x ?? 0}`,
  });

async function eventTypes(agent: Agent, input: Parameters<Agent['reply']>[0]) {
  const out: string[] = [];
  for await (const e of agent.replyStream(input)) {
    const ev = e as AgentEvent;
    out.push('toolCallId' in ev ? `${ev.type}(${ev.toolCallId})` : ev.type);
  }
  return out;
}

describe('exact event lists', () => {
  it('should close text as soon as a chunk of another kind arrives, and tool calls when the stream ends', async () => {
    const chunks: ModelChunk[] = [
      thinkingChunk('plan'),
      { type: 'text', delta: 'Let me ' },
      { type: 'text', delta: 'check.' },
      { type: 'tool_call', id: 'a', name: 'seq', delta: '{"x":' },
      { type: 'tool_call', id: 'a', delta: '1}' },
    ];
    const agent = new Agent({
      name: 'a',
      model: new ScriptedModel([chunks, textChunks('done')]),
      tools: [tool('seq', false)],
    });
    expect(await eventTypes(agent, 'go')).toEqual([
      'REPLY_START',
      'MODEL_CALL_START',
      'THINKING_BLOCK_START',
      'THINKING_BLOCK_DELTA',
      'THINKING_BLOCK_END',
      'TEXT_BLOCK_START',
      'TEXT_BLOCK_DELTA',
      'TEXT_BLOCK_DELTA',
      'TEXT_BLOCK_END',
      'TOOL_CALL_START(a)',
      'TOOL_CALL_DELTA(a)',
      'TOOL_CALL_DELTA(a)',
      'TOOL_CALL_END(a)',
      'MODEL_CALL_END',
      'TOOL_RESULT_START(a)',
      'TOOL_RESULT_TEXT_DELTA(a)',
      'TOOL_RESULT_END(a)',
      'MODEL_CALL_START',
      'TEXT_BLOCK_START',
      'TEXT_BLOCK_DELTA',
      'TEXT_BLOCK_END',
      'MODEL_CALL_END',
      'REPLY_END',
    ]);
  });

  it('should run sequential calls one after another and a concurrent batch interleaved by completion', async () => {
    const seq = new Agent({
      name: 'a',
      model: new ScriptedModel([
        [toolCallChunk('seq', { x: 1 }, 's1'), toolCallChunk('seq', { x: 2 }, 's2')],
        textChunks('ok'),
      ]),
      tools: [tool('seq', false)],
    });
    const seqEvents = (await eventTypes(seq, 'go')).filter((t) => t.startsWith('TOOL_RESULT'));
    expect(seqEvents).toEqual([
      'TOOL_RESULT_START(s1)',
      'TOOL_RESULT_TEXT_DELTA(s1)',
      'TOOL_RESULT_END(s1)',
      'TOOL_RESULT_START(s2)',
      'TOOL_RESULT_TEXT_DELTA(s2)',
      'TOOL_RESULT_END(s2)',
    ]);

    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const slow = defineTool({
      name: 'slow',
      description: 'slow',
      inputSchema: schema,
      concurrencySafe: true,
      execute: async () => {
        await gate;
        return 'slow';
      },
    });
    const fast = defineTool({
      name: 'fast',
      description: 'fast',
      inputSchema: schema,
      concurrencySafe: true,
      execute: async () => {
        release();
        return 'fast';
      },
    });
    const par = new Agent({
      name: 'a',
      model: new ScriptedModel([
        [toolCallChunk('slow', {}, 'p1'), toolCallChunk('fast', {}, 'p2')],
        textChunks('ok'),
      ]),
      tools: [slow, fast],
    });
    const ends = (await eventTypes(par, 'go')).filter((t) => t.startsWith('TOOL_RESULT_END'));
    expect(ends).toEqual(['TOOL_RESULT_END(p2)', 'TOOL_RESULT_END(p1)']);
    // Results take their place in the message when they start (their call order), whatever finishes first.
    expect(
      par.state.context
        .at(-1)!
        .content.filter((b) => b.type === 'tool_result')
        .map((b) => b.id),
    ).toEqual(['p1', 'p2']);
  });

  it('should run a mixed response as runs: concurrent batch, then the sequential call', async () => {
    const agent = new Agent({
      name: 'a',
      model: new ScriptedModel([
        [
          toolCallChunk('par', { x: 1 }, 'm1'),
          toolCallChunk('par', { x: 2 }, 'm2'),
          toolCallChunk('seq', { x: 3 }, 'm3'),
        ],
        textChunks('ok'),
      ]),
      tools: [tool('par', true), tool('seq', false)],
    });
    const starts = (await eventTypes(agent, 'go')).filter(
      (t) => t.startsWith('TOOL_RESULT_START') || t.startsWith('TOOL_RESULT_END'),
    );
    expect(starts.slice(-2)).toEqual(['TOOL_RESULT_START(m3)', 'TOOL_RESULT_END(m3)']);
    expect(starts.slice(0, 4).sort()).toEqual([
      'TOOL_RESULT_END(m1)',
      'TOOL_RESULT_END(m2)',
      'TOOL_RESULT_START(m1)',
      'TOOL_RESULT_START(m2)',
    ]);
  });
});

describe('observe', () => {
  it('should add messages without replying, and a pause survives an observation', async () => {
    const guarded = defineTool({ ...tool('guarded', false), needsConfirmation: true });
    const model = new ScriptedModel([[toolCallChunk('guarded', { x: 1 }, 'g1')], textChunks('all done')]);
    const agent = new Agent({ name: 'a', model, tools: [guarded] });
    await agent.observe(userMsg('context from elsewhere', { name: 'other-agent' }));
    expect(model.callCount).toBe(0);
    await agent.reply('go');
    await agent.observe([userMsg('note while paused')]);
    await expect(agent.reply('new input')).rejects.toThrow(/paused/);
    const msg = await agent.reply(
      userConfirmResult([{ confirmed: true, toolCall: { id: 'g1', name: 'guarded', input: '{"x":1}' } }]),
    );
    expect(getText(msg)).toBe('all done');
    expect(agent.state.context.map((m) => m.role)).toEqual(['user', 'user', 'assistant', 'user']);
  });

  it('should continue from the current state when the input is null', async () => {
    const model = new ScriptedModel([textChunks('first'), textChunks('second')]);
    const agent = new Agent({ name: 'a', model });
    const first = await agent.reply('hi');
    await agent.observe(userMsg('more context'));
    const second = await agent.reply(null);
    expect(second.id).not.toBe(first.id);
    expect(getText(second)).toBe('second');
    expect(model.requests[1]!.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'assistant',
    ]);
  });
});
