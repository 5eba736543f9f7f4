import { describe, expect, it } from 'vitest';
import { Agent } from './agent';
import { ReplyPausedError } from './errors/input-errors';
import { StateError } from './errors/state-error';
import type { AgentEvent } from './events';
import type { ModelChunk } from './model';
import { getText, type Msg } from './msg';
import { replayEvents } from './replay-events';
import { defineTool } from './define-tool';
import { ScriptedModel, textChunks, toolCallChunk } from './testing/scripted-model';

describe('replyStream', () => {
  it('should start lazily, on the first read', async () => {
    const model = new ScriptedModel([textChunks('hi')]);
    const agent = new Agent({ name: 'a', model });
    const stream = agent.replyStream('go');
    await new Promise((r) => setTimeout(r, 5));
    expect(model.callCount).toBe(0);
    const first = await stream.next();
    expect((first.value as AgentEvent).type).toBe('REPLY_START');
    await stream.return();
  });

  it('should yield the final message last with yieldFinalMsg, and nothing after it', async () => {
    const agent = new Agent({ name: 'a', model: new ScriptedModel([textChunks('hello there')]) });
    const items: Array<AgentEvent | Msg> = [];
    for await (const item of agent.replyStream('go', { yieldFinalMsg: true })) items.push(item);
    const last = items.at(-1) as Msg;
    expect(last.role).toBe('assistant');
    expect(last.finishedReason).toBe('completed');
    expect((items.at(-2) as AgentEvent).type).toBe('REPLY_END');
  });

  it('should reject the first read with the typed error when the input is refused', async () => {
    const guarded = defineTool({
      name: 'g',
      description: 'g',
      inputSchema: { type: 'object' },
      needsConfirmation: true,
      execute: () => 'x',
    });
    const agent = new Agent({
      name: 'a',
      model: new ScriptedModel([[toolCallChunk('g', {})]]),
      tools: [guarded],
    });
    await agent.reply('go');
    const stream = agent.replyStream('new input while paused');
    await expect(stream.next()).rejects.toBeInstanceOf(ReplyPausedError);
    expect((await stream.next()).done).toBe(true);
  });

  it('should refuse a second reply while one streams, and accept it afterwards', async () => {
    const agent = new Agent({
      name: 'a',
      model: new ScriptedModel([{ chunks: textChunks('a b c'), delayMs: 2 }, textChunks('second')]),
    });
    const stream = agent.replyStream('first');
    await stream.next();
    await expect(agent.reply('second')).rejects.toBeInstanceOf(StateError);
    for await (const _ of stream) {
      // drain
    }
    expect((await agent.reply('second')).finishedReason).toBe('completed');
  });

  it('should deliver the same events to a slow consumer, in order', async () => {
    const agent = new Agent({
      name: 'a',
      model: new ScriptedModel([textChunks('one two three four five six')]),
    });
    const types: string[] = [];
    for await (const e of agent.replyStream('go')) {
      types.push((e as AgentEvent).type);
      await new Promise((r) => setTimeout(r, 1));
    }
    expect(types.filter((t) => t === 'TEXT_BLOCK_DELTA')).toHaveLength(6);
    expect(types.at(-1)).toBe('REPLY_END');
  });

  it('should keep the order when a consumer that sometimes lags meets chunks of one and of several events', async () => {
    // Deltas of an open block give one event each; a new block gives END + START + DELTA; a thinking
    // chunk closes the text block. The consumer pauses now and then, so events pile up and drain.
    const chunks: ModelChunk[] = [];
    for (let i = 0; i < 60; i++) {
      if (i % 15 === 14) chunks.push({ type: 'thinking', delta: `t${i}` });
      else chunks.push({ type: 'text', delta: `w${i} `, newBlock: i % 7 === 0 });
    }
    const events = (): ModelChunk[] => chunks;
    const streamed = new Agent({ name: 'a', model: new ScriptedModel([events()]) });
    const seen: AgentEvent[] = [];
    let i = 0;
    for await (const e of streamed.replyStream('go')) {
      seen.push(e as AgentEvent);
      if (++i % 9 === 0) await new Promise((r) => setTimeout(r, 0));
    }
    const replayed = replayEvents(seen);
    const stored = new Agent({ name: 'a', model: new ScriptedModel([events()]) });
    const returned = await stored.reply('go');
    const texts = (m: Msg | null) => m?.content.map((b) => (b.type === 'text' ? b.text : b.type)) ?? [];
    expect(texts(replayed)).toEqual(texts(returned));
    expect(texts(replayed)).toEqual(texts(streamed.state.context.at(-1)!));
    expect(seen.filter((e) => e.type === 'TEXT_BLOCK_DELTA')).toHaveLength(56);
  });

  it('should hold a fast streaming tool back while the consumer is far behind, and lose nothing', async () => {
    let produced = 0;
    const flood = defineTool({
      name: 'flood',
      description: 'streams many chunks',
      inputSchema: { type: 'object' },
      async *execute() {
        for (let i = 0; i < 10_000; i++) {
          produced++;
          yield 'x';
        }
      },
    });
    const agent = new Agent({
      name: 'a',
      model: new ScriptedModel([[toolCallChunk('flood', {})], textChunks('done')]),
      tools: [flood],
    });
    const stream = agent.replyStream('go');
    let deltas = 0;
    let producedWhileBehind = 0;
    for await (const e of stream) {
      if ((e as AgentEvent).type !== 'TOOL_RESULT_TEXT_DELTA') continue;
      if (++deltas === 1) {
        await new Promise((r) => setTimeout(r, 50)); // the consumer stalls on the first delta
        producedWhileBehind = produced;
      }
    }
    expect(producedWhileBehind).toBeLessThan(5_000); // about one queue's worth (4,096 events), not all
    expect(deltas).toBe(10_000);
    const result = agent.state.context.at(-1)!.content.find((b) => b.type === 'tool_result');
    expect(result?.type === 'tool_result' && getText({ content: result.output })).toHaveLength(10_000);
  });

  it('should serve reads that were not awaited one by one in the order they were made', async () => {
    const script = () => [
      [toolCallChunk('echo', { text: 'a' }, 'e1')],
      [
        ...textChunks('one two three'),
        { type: 'text' as const, delta: 'four', newBlock: true },
        ...textChunks(' five'),
      ],
    ];
    const echo = defineTool({
      name: 'echo',
      description: 'echo',
      inputSchema: { type: 'object' },
      execute: () => 'echoed',
    });
    const types = (events: unknown[]) => events.map((e) => (e as AgentEvent).type);
    const expected: unknown[] = [];
    for await (const e of new Agent({
      name: 'a',
      model: new ScriptedModel(script()),
      tools: [echo],
    }).replyStream('go'))
      expected.push(e);

    const stream = new Agent({ name: 'a', model: new ScriptedModel(script()), tools: [echo] }).replyStream(
      'go',
    );
    const got: unknown[] = [];
    for (;;) {
      const batch = await Promise.all([stream.next(), stream.next(), stream.next()]);
      for (const r of batch) if (!r.done) got.push(r.value);
      if (batch.some((r) => r.done)) break;
    }
    expect(types(got)).toEqual(types(expected));
    const blocks = (events: unknown[]) =>
      replayEvents(events as AgentEvent[])?.content.map((b) => (b.type === 'text' ? b.text : b.type));
    expect(blocks(got)).toEqual(blocks(expected));
    expect(blocks(got)).toEqual(['tool_call', 'tool_result', 'one two three', 'four five']);
    expect((await stream.next()).done).toBe(true);
  });
});
