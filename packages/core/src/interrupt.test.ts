import { describe, expect, it } from 'vitest';
import { Agent } from './agent';
import type { AgentEvent } from './events';
import { getText } from './msg';
import { replayEvents } from './replay-events';
import { defineTool } from './define-tool';
import { ScriptedModel, textChunks, toolCallChunk } from './testing/scripted-model';

const schema = { type: 'object', properties: {} };

function slowTool(
  name: string,
  seen: AbortSignal[],
  concurrencySafe: boolean,
  onStart: () => void = () => {},
) {
  return defineTool({
    name,
    description: 'waits until aborted',
    inputSchema: schema,
    concurrencySafe,
    execute: (_input, ctx) =>
      new Promise((_resolve, reject) => {
        seen.push(ctx.signal);
        onStart();
        ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason), { once: true });
      }),
  });
}

async function run(
  agent: Agent,
  input: string,
  controller: AbortController,
  abortWhen: (e: AgentEvent) => boolean,
) {
  const events: AgentEvent[] = [];
  for await (const e of agent.replyStream(input, { signal: controller.signal })) {
    events.push(e as AgentEvent);
    if (abortWhen(e as AgentEvent)) controller.abort();
  }
  return events;
}

describe('interrupts via AbortSignal', () => {
  it('should keep partial text when aborted mid-stream and end interrupted', async () => {
    const model = new ScriptedModel([{ chunks: textChunks('one two three four five'), delayMs: 5 }]);
    const agent = new Agent({ name: 'a', model });
    const controller = new AbortController();
    let deltas = 0;
    const events = await run(
      agent,
      'count',
      controller,
      (e) => e.type === 'TEXT_BLOCK_DELTA' && ++deltas === 2,
    );
    expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishedReason: 'interrupted' });
    expect(events.find((e) => e.type === 'MODEL_CALL_END')).toMatchObject({ finishedReason: 'interrupted' });
    const msg = agent.state.context.at(-1)!;
    expect(getText(msg)).toBe('one two ');
    expect(msg.finishedReason).toBe('interrupted');
    expect(replayEvents(events)).toEqual(msg);
  });

  it('should pass the signal to sequential tools, close the rest as interrupted, and stay resumable', async () => {
    for (const concurrent of [false, true]) {
      const seen: AbortSignal[] = [];
      const model = new ScriptedModel([
        [toolCallChunk('slow1', {}, 's1'), toolCallChunk('slow2', {}, 's2')],
        textChunks('fresh start'),
      ]);
      const controller = new AbortController();
      const abortSoon = () => setTimeout(() => controller.abort(), 5);
      const agent = new Agent({
        name: 'a',
        model,
        tools: [slowTool('slow1', seen, concurrent, abortSoon), slowTool('slow2', seen, concurrent)],
      });
      const events = await run(agent, 'go', controller, () => false);
      expect(seen[0]?.aborted).toBe(true);
      expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishedReason: 'interrupted' });
      const results = agent.state.context.at(-1)!.content.filter((b) => b.type === 'tool_result');
      expect(results.map((r) => [r.id, r.state])).toEqual(
        concurrent
          ? [
              ['s1', 'interrupted'],
              ['s2', 'interrupted'],
            ].sort()
          : [
              ['s1', 'interrupted'],
              ['s2', 'interrupted'],
            ],
      );
      expect(replayEvents(events)).toEqual(agent.state.context.at(-1));
      const next = await agent.reply('again');
      expect(getText(next)).toBe('fresh start');
      // The model saw every call answered.
      const sent = model.requests[1]!.messages.flatMap((m) => m.content);
      expect(sent.filter((b) => b.type === 'tool_call').length).toBe(
        sent.filter((b) => b.type === 'tool_result').length,
      );
    }
  });

  it('should end interrupted when the signal is already aborted', async () => {
    const model = new ScriptedModel([textChunks('never')]);
    const agent = new Agent({ name: 'a', model });
    const msg = await agent.reply('x', { signal: AbortSignal.abort() });
    expect(msg.finishedReason).toBe('interrupted');
    expect(model.callCount).toBe(0);
  });
});

describe('breaking out of replyStream', () => {
  it('should stop a streaming model call cleanly and leave the agent ready', async () => {
    const model = new ScriptedModel([
      { chunks: textChunks('a b c d e f g h'), delayMs: 2 },
      textChunks('next reply'),
    ]);
    const agent = new Agent({ name: 'a', model });
    let deltas = 0;
    for await (const e of agent.replyStream('go')) {
      if ((e as AgentEvent).type === 'TEXT_BLOCK_DELTA' && ++deltas === 2) break;
    }
    const msg = agent.state.context.at(-1)!;
    expect(msg.finishedReason).toBe('interrupted');
    expect(getText(msg)).toBe('a b ');
    expect(agent.isReplying).toBe(false);
    expect(getText(await agent.reply('again'))).toBe('next reply');
  });
});
