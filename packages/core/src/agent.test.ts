import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from './agent';
import { defineTool } from './define-tool';
import { getText, userMsg } from './msg';
import { replayEvents } from './replay-events';
import type { AgentEvent } from './events';
import {
  ScriptedModel,
  textChunks,
  thinkingChunk,
  toolCallChunk,
  usageChunk,
} from './testing/scripted-model';
import { ConfigError } from './errors/config-error';

const add = defineTool({
  name: 'add',
  description: 'Add two numbers',
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  concurrencySafe: true,
  execute: ({ a, b }) => String(a + b),
});

async function collect(gen: AsyncIterable<unknown>) {
  const out: unknown[] = [];
  for await (const e of gen) out.push(e);
  return out;
}
const types = (events: unknown[]) => events.map((e) => (e as AgentEvent).type ?? 'Msg');

describe('Agent basics', () => {
  it('should stream a text reply with the exact event order and return the accumulated message', async () => {
    const model = new ScriptedModel([
      [...textChunks('Hello there'), usageChunk({ inputTokens: 10, outputTokens: 3, cacheInputTokens: 4 })],
    ]);
    const agent = new Agent({ name: 'Friday', model });
    const events = await collect(agent.replyStream(userMsg('hi'), { yieldFinalMsg: true }));
    expect(types(events)).toEqual([
      'REPLY_START',
      'MODEL_CALL_START',
      'TEXT_BLOCK_START',
      'TEXT_BLOCK_DELTA',
      'TEXT_BLOCK_DELTA',
      'TEXT_BLOCK_END',
      'MODEL_CALL_END',
      'REPLY_END',
      'Msg',
    ]);
    const msg = events.at(-1) as ReturnType<typeof replayEvents>;
    expect(msg).not.toBeNull();
    expect(getText(msg!)).toBe('Hello there');
    expect(msg!.finishedReason).toBe('completed');
    expect(msg!.finishedAt).toEqual(expect.any(String));
    expect(msg!.usage).toEqual({
      inputTokens: 10,
      outputTokens: 3,
      cacheInputTokens: 4,
      cacheCreationInputTokens: 0,
      reasoningTokens: 0,
    });
    // Replaying the stream gives the persisted message.
    const persisted = agent.state.context.at(-1);
    expect(replayEvents(events.slice(0, -1) as AgentEvent[])).toEqual(persisted);
    expect(msg).toEqual(persisted);
  });

  it('should count a tool round as one iteration and sum usage over model calls', async () => {
    const model = new ScriptedModel([
      [toolCallChunk('add', { a: 1, b: 2 }), usageChunk({ inputTokens: 5, outputTokens: 1 })],
      [...textChunks('3'), usageChunk({ inputTokens: 7, outputTokens: 2 })],
    ]);
    const agent = new Agent({ name: 'a', model, tools: [add] });
    const msg = await agent.reply('add 1 and 2');
    expect(agent.state.reply?.iteration).toBe(2);
    expect(model.callCount).toBe(2);
    expect(msg.usage?.inputTokens).toBe(12);
    expect(msg.content.map((b) => b.type)).toEqual(['tool_call', 'tool_result', 'text']);
    const result = msg.content[1];
    expect(result).toMatchObject({
      type: 'tool_result',
      state: 'success',
      output: [{ type: 'text', text: '3' }],
    });
    expect(msg.content[0]).toMatchObject({ state: 'finished' });
  });

  it('should give a tool-call id the model reuses within a reply a suffix, and pair each result with its call', async () => {
    const model = new ScriptedModel([
      [toolCallChunk('add', { a: 1, b: 1 }, 'dup')],
      [toolCallChunk('add', { a: 2, b: 2 }, 'dup')],
      [toolCallChunk('add', { a: 3, b: 3 }, 'dup')],
      textChunks('done'),
    ]);
    const agent = new Agent({ name: 'a', model, tools: [add] });
    const msg = await agent.reply('add');
    const pairs = msg.content.flatMap((b) =>
      b.type === 'tool_call'
        ? [`call ${b.id} ${b.input}`]
        : b.type === 'tool_result'
          ? [`result ${b.id} ${getText({ content: b.output })}`]
          : [],
    );
    expect(pairs).toEqual([
      'call dup {"a":1,"b":1}',
      'result dup 2',
      'call dup_2 {"a":2,"b":2}',
      'result dup_2 4',
      'call dup_3 {"a":3,"b":3}',
      'result dup_3 6',
    ]);
  });

  it('should continue after a thinking-only response', async () => {
    const model = new ScriptedModel([[thinkingChunk('hmm')], textChunks('done')]);
    const agent = new Agent({ name: 'a', model });
    const msg = await agent.reply('x');
    expect(model.callCount).toBe(2);
    expect(getText(msg)).toBe('done');
  });

  it('should reject invalid configuration with a named field', () => {
    const model = new ScriptedModel([]);
    expect(() => new Agent({ name: '', model })).toThrow(ConfigError);
    expect(() => new Agent({ name: 'a', model, maxIters: 0 })).toThrow(/maxIters/);
  });
});
