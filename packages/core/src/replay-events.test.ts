import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from './agent';
import type { AgentEvent } from './events';
import type { Msg } from './msg';
import { applyEvent, replayEvents } from './replay-events';
import { defineTool } from './define-tool';
import {
  ScriptedModel,
  textChunks,
  thinkingChunk,
  toolCallChunk,
  usageChunk,
} from './testing/scripted-model';

const echo = defineTool({
  name: 'echo',
  description: 'echo',
  inputSchema: z.object({ text: z.string() }),
  concurrencySafe: true,
  async *execute({ text }) {
    yield text;
    yield {
      type: 'data',
      source: { type: 'url', url: 'https://example.invalid/x.png', mediaType: 'image/png' },
    } as const;
    yield ' again';
  },
});

describe('replaying events', () => {
  it('should rebuild the persisted message from a stream with thinking, tools, data and errors', async () => {
    const model = new ScriptedModel([
      [
        thinkingChunk('let me think'),
        ...textChunks('calling'),
        toolCallChunk('echo', { text: 'hi' }, 'c1'),
        toolCallChunk('echo', '{"text": 1}', 'c2'),
        toolCallChunk('missing', {}, 'c3'),
        toolCallChunk('echo', '{not json', 'c4'),
        usageChunk({ inputTokens: 3, outputTokens: 4 }),
      ],
      [
        {
          type: 'data',
          mediaType: 'image/png',
          data: btoa('ab'),
          providerData: { thoughtSignature: 'sig-1' },
        },
        { type: 'data', mediaType: 'image/png', data: btoa('cd') },
        ...textChunks('done'),
      ],
    ]);
    const agent = new Agent({ name: 'a', model, tools: [echo] });
    const events: AgentEvent[] = [];
    for await (const e of agent.replyStream('go')) events.push(e as AgentEvent);
    const persisted = agent.state.context.at(-1)!;
    const rebuilt = replayEvents(JSON.parse(JSON.stringify(events)));
    expect(rebuilt).toEqual(persisted);
    const results = persisted.content.filter((b) => b.type === 'tool_result');
    results.sort((a, b) => a.id.localeCompare(b.id));
    expect(results.map((r) => r.state)).toEqual(['success', 'error', 'error', 'error']);
    expect(results[0]!.output.map((p) => p.type)).toEqual(['text', 'data', 'text']);
    expect((results[1]!.output[0] as { text: string }).text).toMatch(
      /^Input validation failed for tool 'echo': text: /,
    );
    expect((results[2]!.output[0] as { text: string }).text).toBe(
      "ToolNotFoundError: The tool named 'missing' doesn't exist.",
    );
    expect((results[3]!.output[0] as { text: string }).text).toMatch(
      /not valid JSON[\s\S]*You should recorrect the arguments in JSON format\./,
    );
    const data = persisted.content.find((b) => b.type === 'data');
    expect(data).toMatchObject({
      source: { type: 'base64', data: btoa('abcd'), mediaType: 'image/png' },
      providerData: { thoughtSignature: 'sig-1' },
    });
  });

  it('should skip events of another reply and deltas of unknown blocks without throwing', () => {
    const warnings: string[] = [];
    let msg: Msg | null = applyEvent(null, {
      type: 'REPLY_START',
      replyId: 'r1',
      sessionId: 's',
      name: 'a',
      role: 'assistant',
      createdAt: 't',
    });
    msg = applyEvent(msg, { type: 'TEXT_BLOCK_START', replyId: 'r2', blockId: 'b' }, (w) => warnings.push(w));
    msg = applyEvent(msg, { type: 'TEXT_BLOCK_DELTA', replyId: 'r1', blockId: 'nope', delta: 'x' }, (w) =>
      warnings.push(w),
    );
    msg = applyEvent(
      msg,
      { type: 'TOOL_RESULT_END', replyId: 'r1', toolCallId: 'x', state: 'success', metadata: {} },
      (w) => warnings.push(w),
    );
    expect(msg?.content).toEqual([]);
    expect(warnings).toHaveLength(3);
  });

  it('should keep events JSON-serialisable with string types', async () => {
    const agent = new Agent({
      name: 'a',
      model: new ScriptedModel([[toolCallChunk('echo', { text: 'x' }, 'c1')], textChunks('ok')]),
      tools: [echo],
    });
    for await (const e of agent.replyStream('go')) {
      const event = e as AgentEvent;
      expect(typeof event.type).toBe('string');
      expect(JSON.parse(JSON.stringify(event))).toEqual(event);
      if (event.type === 'TOOL_RESULT_DATA_DELTA')
        expect(('data' in event ? 1 : 0) + ('url' in event ? 1 : 0)).toBe(1);
    }
  });
});
