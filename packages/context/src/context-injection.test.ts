import {
  Agent,
  type AgentEvent,
  createAgentState,
  createMsg,
  getBlocks,
  type HintBlock,
  type Msg,
} from '@agentkit/core';
import { ScriptedModel, textChunks, toolCallChunk } from '@agentkit/core/testing';
import { injection } from '@agentkit/injection';
import { describe, expect, it } from 'vitest';
import { contextPlugin } from './context-plugin';
import { SUMMARY_TOOL_NAME } from './defaults';
import { FIELDS, chars } from './__fixtures__/summary-fixtures';

// Both plugins together, as an application installs them (they meet only through the `compression`
// capability and the shared context).

const NOW = new Date('2026-07-22T10:30:00Z');
const TIME = '<current-time>2026-07-22T10:30:00</current-time>';

const hintTexts = (msgs: readonly Msg[]) =>
  msgs.flatMap((m) => getBlocks(m, 'hint')).map((h: HintBlock) => (typeof h.hint === 'string' ? h.hint : ''));
const timeHints = (msgs: readonly Msg[]) => hintTexts(msgs).filter((t) => t.includes(TIME));

describe('@agentkit/context with @agentkit/injection', () => {
  it('after a compression the next model call gets a fresh time hint; the usage hint shows the context threshold', async () => {
    const model = new ScriptedModel(
      [textChunks('hi'), [toolCallChunk(SUMMARY_TOOL_NAME, FIELDS)], textChunks('noted'), textChunks('bye')],
      { contextSize: 1000 },
    );
    // Compression from 500 tokens; the usage hint from 200 (injection's own defaults would say 800 and 600).
    const context = contextPlugin({ triggerRatio: 0.5, reserveRatio: 0.1, contextBufferRatio: 0.3 });
    const agent = new Agent({
      name: 'Friday',
      model,
      plugins: [injection({ now: () => NOW, timezone: 'UTC', timeInterval: 1 }), context],
      state: {
        ...createAgentState({ sessionId: 's' }),
        context: [createMsg({ role: 'user', id: 'old', content: chars('o', 350) })],
      },
    });

    // Reply 1: about 350 tokens, below the trigger, inside the buffer: time and usage are injected.
    await agent.reply('hello');
    const firstReplyId = agent.state.reply!.id;
    const first = hintTexts(model.requests[0]!.messages);
    expect(first).toHaveLength(1);
    expect(first[0]).toContain(TIME);
    expect(first[0]).toMatch(
      /<context-length>Your current context contains \d+ tokens\. When reaching 500 tokens/,
    );

    // Reply 2: the observed research pushes the input past 500 tokens, so the context plugin compresses
    // first (the reply-1 time hint goes into the summary), then injection finds no recorded time.
    await agent.observe(
      createMsg({ role: 'assistant', name: 'Researcher', id: 'research', content: chars('r', 200) }),
    );
    const events: AgentEvent[] = [];
    for await (const e of agent.replyStream('what next?')) if ('type' in e) events.push(e as AgentEvent);
    const summaryCall = model.requests[1]!;
    expect(summaryCall.toolChoice).toEqual({ name: SUMMARY_TOOL_NAME });
    expect(timeHints(summaryCall.messages)).toHaveLength(1);
    expect(agent.state.context.map((m) => m.id)).not.toContain(firstReplyId);

    const next = model.requests[2]!.messages;
    expect(next[0]!.id).toBe('summary');
    expect(timeHints(next)).toHaveLength(1);
    const replyMsg = next.at(-1)!;
    expect(replyMsg.id).toBe(agent.state.reply!.id);
    expect(timeHints([replyMsg])).toHaveLength(1);
    // After compressing, the input is small again: no usage hint.
    expect(hintTexts(next).join('')).not.toContain('<context-length>');
    // Compression happened (and was reported) before the injection.
    const order = events
      .filter((e) => e.type === 'CUSTOM' || e.type === 'HINT_BLOCK')
      .map((e) => (e.type === 'CUSTOM' ? e.name : 'hint'));
    expect(order).toEqual(['context.compressed', 'hint']);

    // Reply 3: no compression, and the recorded time is recent: no new time hint (the fresh one in reply 2
    // came from the compression, not from the clock).
    await agent.reply('thanks');
    expect(model.requests).toHaveLength(4);
    expect(timeHints(model.requests[3]!.messages)).toHaveLength(1);
    expect(hintTexts([agent.state.context.at(-1)!])).toEqual([]);
  });

  it('recommends CompressContext when the context plugin enables the tool', async () => {
    const model = new ScriptedModel([textChunks('ok')], { contextSize: 1000 });
    const agent = new Agent({
      name: 'Friday',
      model,
      plugins: [
        injection({ now: () => NOW }),
        contextPlugin({ triggerRatio: 0.9, contextBufferRatio: 0.5, compressionToolEnabled: true }),
      ],
      state: {
        ...createAgentState(),
        context: [createMsg({ role: 'user', id: 'old', content: chars('o', 300) })],
      },
    });
    await agent.reply('hello');
    const [hint] = hintTexts(model.requests[0]!.messages);
    expect(hint).toMatch(/When reaching 900 tokens/);
    expect(hint).toContain('<context-compression>');
    expect(model.requests[0]!.tools.map((t) => t.name)).toContain('CompressContext');
  });
});
