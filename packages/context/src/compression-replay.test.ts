// Issue 13 (seed 001): a reply compressed while it runs reports the usage of all its model calls, and
// replaying its events rebuilds exactly the message it returned and stored — with real-provider usage on
// every call, the summary calls included.
import {
  Agent,
  type AgentEvent,
  defineTool,
  type ModelRequest,
  type Msg,
  replayEvents,
  TokenCounter,
  userMsg,
} from '@agentkit/core';
import { ScriptedModel, textChunks, toolCallChunk, usageChunk } from '@agentkit/core/testing';
import { describe, expect, it } from 'vitest';
import { contextPlugin } from './context-plugin';
import { SUMMARY_TOOL_NAME } from './defaults';
import { chars, FIELDS } from './__fixtures__/summary-fixtures';

const isSummary = (request: ModelRequest) =>
  typeof request.toolChoice === 'object' && request.toolChoice.name === SUMMARY_TOOL_NAME;

/** A 100-token result per call: a reply of a few rounds outgrows a 400-token model several times. */
const read = defineTool({
  name: 'read',
  description: 'reads a page',
  inputSchema: { type: 'object' },
  idempotent: true,
  execute: () => chars('p', 100),
});

/**
 * Like a real provider, reports usage on every call: the input it was sent (core's estimate, so the
 * calibrated counts see what a provider would say), and 7 output tokens per reply call, 100 per summary.
 * `rounds` tool rounds, then an answer.
 */
function providerLike(rounds: number) {
  let turn = 0;
  const counter = new TokenCounter({});
  return new ScriptedModel(
    [
      (request) => {
        const inputTokens = counter.count(request);
        return isSummary(request)
          ? [toolCallChunk(SUMMARY_TOOL_NAME, FIELDS), usageChunk({ inputTokens, outputTokens: 100 })]
          : [
              ...(++turn <= rounds ? [toolCallChunk('read', {})] : textChunks('all read')),
              usageChunk({ inputTokens, outputTokens: 7 }),
            ];
      },
    ],
    { contextSize: 400, onExhausted: 'repeat' },
  );
}

async function run(agent: Agent, input: string) {
  const events: AgentEvent[] = [];
  let msg: Msg | undefined;
  for await (const item of agent.replyStream(input, { yieldFinalMsg: true }))
    if ('type' in item) events.push(item);
    else msg = item;
  return { events, msg: msg! };
}

const sumOutput = (events: AgentEvent[]) =>
  events.reduce((n, e) => n + (e.type === 'MODEL_CALL_END' ? e.usage.outputTokens : 0), 0);

describe('usage and replay of a reply compressed while it runs', () => {
  it("the reply's own message summarised away: usage of every call, replay = returned = stored", async () => {
    const model = providerLike(4);
    const agent = new Agent({
      name: 'Friday',
      model,
      tools: [read],
      plugins: [contextPlugin({ triggerRatio: 0.5, reserveRatio: 0.05 })],
    });
    const { events, msg } = await run(agent, 'read everything');
    const compressions = events.filter((e) => e.type === 'CUSTOM' && e.name === 'context.compressed');
    expect(compressions.length).toBeGreaterThanOrEqual(2);
    const summaries = events.filter((e) => e.type === 'MODEL_CALL_START' && e.plugin === '@agentkit/context');
    expect(summaries).toHaveLength(compressions.length);
    // Five calls of the reply (4 rounds + the answer) at 7 tokens, and every summary call at 100.
    expect(msg.usage?.outputTokens).toBe(5 * 7 + summaries.length * 100);
    expect(sumOutput(events)).toBe(msg.usage?.outputTokens);
    expect(replayEvents(events)).toEqual(msg);
    // The stored message is the kept part, with the same usage.
    const stored = agent.state.context.find((m) => m.id === msg.id)!;
    expect(stored.usage).toEqual(msg.usage);
    expect(stored.content.length).toBeLessThan(msg.content.length);
    expect(msg.content.filter((b) => b.type === 'tool_result')).toHaveLength(4);
  });

  it("a summary call's usage reaches the kept reply message through MODEL_CALL_END, not behind the stream", async () => {
    // Compression on the first model call of the reply: the reply's (empty) message is kept.
    const model = new ScriptedModel(
      [
        [toolCallChunk(SUMMARY_TOOL_NAME, FIELDS), usageChunk({ inputTokens: 500, outputTokens: 100 })],
        [...textChunks('answer'), usageChunk({ inputTokens: 20, outputTokens: 3 })],
      ],
      { contextSize: 400 },
    );
    const agent = new Agent({
      name: 'Friday',
      model,
      plugins: [contextPlugin({ triggerRatio: 0.5, reserveRatio: 0.1 })],
    });
    const { events, msg } = await run(agent, chars('q', 300));
    expect(events.some((e) => e.type === 'CUSTOM' && e.name === 'context.compressed')).toBe(true);
    expect(msg.usage).toMatchObject({ inputTokens: 520, outputTokens: 103 });
    // Before, the stream said 3 output tokens and the message 103.
    expect(replayEvents(events)).toEqual(msg);
    expect(agent.state.context.find((m) => m.id === msg.id)?.usage).toEqual(msg.usage);
    // The kept user message does not carry the summary's usage as well: counted once.
    expect(agent.state.context.filter((m) => m.role === 'user').every((m) => m.usage === null)).toBe(true);
  });

  it('a manual compression between replies still adds its usage to the last kept message', async () => {
    const model = new ScriptedModel(
      [[toolCallChunk(SUMMARY_TOOL_NAME, FIELDS), usageChunk({ inputTokens: 9, outputTokens: 4 })]],
      { contextSize: 400 },
    );
    const context = contextPlugin({ triggerRatio: 0.5, reserveRatio: 0.1 });
    const agent = new Agent({ name: 'Friday', model, plugins: [context] });
    await agent.observe([userMsg(chars('a', 200)), userMsg(chars('b', 20))]);
    const outcome = await context.compress(agent);
    expect(outcome.compressed).toBe(true);
    expect(agent.state.context.at(-1)?.usage).toMatchObject({ inputTokens: 9, outputTokens: 4 });
  });
});
