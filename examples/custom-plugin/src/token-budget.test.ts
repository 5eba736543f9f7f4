import {
  Agent,
  type AgentEvent,
  type AgentState,
  ConfigError,
  definePlugin,
  defineTool,
  getBlocks,
  getText,
  StateError,
  userConfirmResult,
} from '@agentkit/core';
import { ScriptedModel, textChunks, toolCallChunk, usageChunk } from '@agentkit/core/testing';
import { describe, expect, it } from 'vitest';
import { tokenBudget } from './token-budget.js';
import { readTokenBudget } from './token-budget-state.js';

function searchTool(log: string[]) {
  return defineTool<{ q: string }>({
    name: 'search',
    description: 'Search the web',
    inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    execute: ({ q }) => {
      log.push(q);
      return `results for ${q}`;
    },
  });
}

/** A model response: a search call plus a usage chunk of `tokens` output tokens. */
const searching = (q: string, tokens: number, id = `c_${q}`) => [
  toolCallChunk('search', { q }, id),
  usageChunk({ outputTokens: tokens }),
];
const answering = (text: string, tokens: number) => [
  ...textChunks(text),
  usageChunk({ outputTokens: tokens }),
];

async function collect(agent: Agent, input: Parameters<Agent['replyStream']>[0]) {
  const events: AgentEvent[] = [];
  for await (const e of agent.replyStream(input)) events.push(e as AgentEvent);
  return events;
}
const hints = (agent: Agent) =>
  agent.state.context
    .flatMap((m) => getBlocks(m, 'hint'))
    .filter((h) => h.source === 'token-budget')
    .map((h) => String(h.hint));

describe('tokenBudget', () => {
  it('should stay silent below the warning threshold and count every reply in its state slot', async () => {
    const log: string[] = [];
    const model = new ScriptedModel([searching('a', 100), answering('done', 50), answering('again', 30)]);
    const agent = new Agent({
      name: 'a',
      model,
      tools: [searchTool(log)],
      plugins: [tokenBudget({ limit: 1000 })],
    });
    const msg = await agent.reply('go');
    expect(msg.finishedReason).toBe('completed');
    expect(hints(agent)).toEqual([]);
    expect(readTokenBudget(agent.state)).toEqual({ spent: 150, replies: 1 });
    await agent.reply('more');
    expect(readTokenBudget(agent.state)).toEqual({ spent: 180, replies: 2 });
  });

  it('should hint once per reply when the budget is nearly spent, and emit a warning event', async () => {
    const log: string[] = [];
    const model = new ScriptedModel([
      searching('a', 500),
      searching('b', 350),
      searching('c', 50),
      answering('ok', 10),
    ]);
    const agent = new Agent({
      name: 'a',
      model,
      tools: [searchTool(log)],
      plugins: [tokenBudget({ limit: 1000, warnAt: 0.8 })],
    });
    const events = await collect(agent, 'go');
    expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishedReason: 'completed' });
    expect(log).toEqual(['a', 'b', 'c']);
    expect(hints(agent)).toEqual([
      '<token-budget>You have used 850 of your 1000 tokens (85%). Finish the task soon and avoid unnecessary tool calls.</token-budget>',
    ]);
    expect(events.filter((e) => e.type === 'CUSTOM')).toMatchObject([
      { name: 'token-budget.warning', value: { spent: 850, limit: 1000 } },
    ]);
    // The model saw the hint on the third call, not before.
    const sawHint = model.requests.map((r) => JSON.stringify(r.messages).includes('You have used'));
    expect(sawHint).toEqual([false, false, true, true]);
  });

  it('should deny the calls of the response that passed the limit and grant one final call without tools', async () => {
    const log: string[] = [];
    const model = new ScriptedModel([
      searching('a', 600),
      searching('b', 500),
      answering('Here is what I found.', 40),
    ]);
    const agent = new Agent({
      name: 'a',
      model,
      tools: [searchTool(log)],
      plugins: [tokenBudget({ limit: 1000 })],
    });
    const events = await collect(agent, 'go');
    const msg = agent.state.context.at(-1)!;
    expect(msg.finishedReason).toBe('completed');
    expect(getText(msg)).toBe('Here is what I found.');
    expect(log).toEqual(['a']); // 'b' was denied: the response asking for it passed the limit
    expect(getBlocks(msg, 'tool_result').map((r) => r.state)).toEqual(['success', 'denied']);
    expect(model.requests.map((r) => r.toolChoice)).toEqual(['auto', 'auto', 'none']);
    expect(JSON.stringify(model.requests[2]!.messages)).toContain(
      'The token budget is spent (1100 of 1000 tokens)',
    );
    // 600 is below the warning threshold (800) and 1100 already past the limit: no warning first.
    expect(events.filter((e) => e.type === 'CUSTOM')).toMatchObject([
      { name: 'token-budget.exceeded', value: { spent: 1100, limit: 1000 } },
    ]);
    expect(readTokenBudget(agent.state)).toEqual({ spent: 1140, replies: 1 });
  });

  it('should stop the reply as a limit reached when the model keeps calling tools after its final call', async () => {
    const log: string[] = [];
    const model = new ScriptedModel([searching('a', 1200), searching('b', 10), searching('c', 10)]);
    const agent = new Agent({
      name: 'a',
      model,
      tools: [searchTool(log)],
      plugins: [tokenBudget({ limit: 1000 })],
    });
    const events: AgentEvent[] = [];
    for await (const e of agent.replyStream('go')) events.push(e as AgentEvent);
    const msg = agent.state.context.at(-1)!;
    expect(msg.finishedReason).toBe('exceed_max_iters');
    expect(msg.error).toBeNull();
    expect(events.filter((e) => e.type === 'CUSTOM').map((e) => (e as { name: string }).name)).toContain(
      'token-budget.stopped',
    );
    expect(model.callCount).toBe(2);
    expect(log).toEqual([]); // the first response alone passed the limit: its call was denied too
    expect(getBlocks(msg, 'tool_result').map((r) => r.state)).toEqual(['denied', 'denied']);
    expect(readTokenBudget(agent.state)).toEqual({ spent: 1210, replies: 1 });
  });

  it('should refuse a new reply before any model call once the budget is spent', async () => {
    const model = new ScriptedModel([answering('expensive', 1500), answering('never sent', 1)]);
    const agent = new Agent({ name: 'a', model, plugins: [tokenBudget({ limit: 1000 })] });
    expect((await agent.reply('first')).finishedReason).toBe('completed');
    const second = await agent.reply('second');
    expect(second.finishedReason).toBe('exceed_max_iters');
    expect(second.error).toBeNull();
    expect(model.callCount).toBe(1);
    expect(readTokenBudget(agent.state)).toEqual({ spent: 1500, replies: 2 });
  });

  it('should keep counting across a pause and a reload of the state in a new agent', async () => {
    const log: string[] = [];
    const risky = defineTool<{ q: string }>({ ...searchTool(log), name: 'risky', needsConfirmation: true });
    const script = [
      [toolCallChunk('risky', { q: 'x' }, 'r1'), usageChunk({ outputTokens: 700 })],
      searching('b', 400),
      answering('ok', 5),
    ];
    const first = new Agent({
      name: 'a',
      model: new ScriptedModel(script),
      tools: [risky, searchTool(log)],
      plugins: [tokenBudget({ limit: 1000 })],
    });
    expect((await first.reply('go')).finishedReason).toBeNull();
    const saved: AgentState = JSON.parse(JSON.stringify(first.state));

    const model = new ScriptedModel(script.slice(1));
    const second = new Agent({
      name: 'a',
      model,
      tools: [risky, searchTool(log)],
      state: saved,
      plugins: [tokenBudget({ limit: 1000 })],
    });
    const msg = await second.reply(
      userConfirmResult([{ confirmed: true, toolCall: { id: 'r1', name: 'risky', input: '{"q":"x"}' } }]),
    );
    expect(msg.finishedReason).toBe('completed');
    expect(log).toEqual(['x']); // 700 (first process) + 400 passed the limit: 'b' was denied
    expect(model.requests.map((r) => r.toolChoice)).toEqual(['auto', 'none']);
    expect(readTokenBudget(second.state)).toEqual({ spent: 1105, replies: 1 });
  });

  it('should keep what the reply spent when a compression plugin replaces the reply message', async () => {
    const log: string[] = [];
    const compressor = definePlugin({
      name: 'compressor',
      hooks: {
        beforeInference: ({ ctx }) => {
          if (ctx.reply.iteration === 1)
            ctx.replaceContext({ summary: 'The user asked to search.', context: [] });
        },
      },
    });
    const model = new ScriptedModel([searching('a', 600), searching('b', 500), answering('ok', 40)]);
    const agent = new Agent({
      name: 'a',
      model,
      tools: [searchTool(log)],
      plugins: [compressor, tokenBudget({ limit: 1000 })],
    });
    const msg = await agent.reply('go');
    expect(msg.finishedReason).toBe('completed');
    // The fresh reply message keeps what the reply spent before the compression (600 + 500 + 40).
    expect(agent.state.context[0]!.usage?.outputTokens).toBe(1140);
    expect(log).toEqual(['a']);
    expect(model.requests.map((r) => r.toolChoice)).toEqual(['auto', 'auto', 'none']);
    expect(readTokenBudget(agent.state)).toEqual({ spent: 1140, replies: 1 });
  });

  it('should reject bad options and a corrupt state slot with typed errors', () => {
    expect(() => tokenBudget({ limit: 0 })).toThrow(ConfigError);
    expect(() => tokenBudget({ limit: 100, warnAt: 1.5 })).toThrow(/warnAt/);
    const state = JSON.parse(
      JSON.stringify(new Agent({ name: 'a', model: new ScriptedModel([]) }).state),
    ) as AgentState;
    state.plugins['token-budget'] = { spent: 'lots', replies: 0 };
    expect(
      () =>
        new Agent({ name: 'a', model: new ScriptedModel([]), state, plugins: [tokenBudget({ limit: 10 })] }),
    ).toThrow(StateError);
  });

  it('should tell other plugins the spending through the token-budget capability', async () => {
    let seen: number | undefined;
    const reporter = {
      name: 'reporter',
      hooks: {
        onReplyEnd: ({ ctx }: { ctx: import('@agentkit/core').PluginContext }) =>
          void (seen = ctx.capability('token-budget')?.spent(ctx.state)),
      },
    };
    const agent = new Agent({
      name: 'a',
      model: new ScriptedModel([answering('hi', 42)]),
      plugins: [tokenBudget({ limit: 100 }), reporter],
    });
    await agent.reply('go');
    expect(seen).toBe(42);
  });
});
