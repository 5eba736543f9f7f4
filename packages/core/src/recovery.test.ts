import { describe, expect, it } from 'vitest';
import { Agent } from './agent';
import type { ToolResultBlock } from './blocks';
import { type AgentEvent, userConfirmResult, userInterrupt } from './events';
import { getBlocks, getText, type Msg } from './msg';
import { replayEvents } from './replay-events';
import { findReplyMsg } from './reply-input';
import type { AgentState } from './state';
import { ScriptedModel, textChunks, toolCallChunk, usageChunk } from './testing/scripted-model';
import { defineTool } from './define-tool';
import type { Tool } from './tool';

const schema = { type: 'object', properties: { n: { type: 'number' } } };

/** A tool with a side effect, counting its runs; `during` runs inside it (to capture a crash state). */
function sideEffect(runs: number[], during?: (state: AgentState) => void, idempotent = false): Tool {
  return defineTool({
    name: idempotent ? 'lookup' : 'deploy',
    description: 'a tool',
    inputSchema: schema,
    idempotent,
    concurrencySafe: true,
    execute: ({ n }: { n: number }, ctx) => {
      runs.push(n);
      during?.(ctx.state);
      return `ran ${n}`;
    },
  });
}

const snapshot = (state: AgentState) => JSON.parse(JSON.stringify(state)) as AgentState;
/** The state of the first checkpoint taken inside the tool round (the one before it is the accepted input). */
const inToolRound = (state: AgentState) => findReplyMsg(state)!.content.some((b) => b.type === 'tool_result');
const silent = { warn() {}, error() {} };

async function collect(agent: Agent, input: Parameters<Agent['replyStream']>[0]) {
  const events: AgentEvent[] = [];
  let msg: Msg | undefined;
  for await (const e of agent.replyStream(input, { yieldFinalMsg: true }))
    if ('type' in e) events.push(e);
    else msg = e as Msg;
  return { events, msg: msg! };
}

describe('checkpoints', () => {
  it('are awaited before a tool with side effects runs (marked started) and started after its result', async () => {
    const saved: AgentState[] = [];
    const runs: number[] = [];
    const order: string[] = [];
    const tool = sideEffect(runs, () => order.push('run'));
    const model = new ScriptedModel([[toolCallChunk('deploy', { n: 1 }, 'c1')], textChunks('done')]);
    const agent = new Agent({ name: 'a', model, tools: [tool] });
    const msg = await agent.reply('go', {
      checkpoint: async (state) => {
        order.push('save');
        saved.push(snapshot(state));
      },
    });
    expect(msg.finishedReason).toBe('completed');
    // The accepted input, then before the tool (awaited) and after it.
    expect(order).toEqual(['save', 'save', 'run', 'save']);
    expect(findReplyMsg(saved[0]!)!.content).toEqual([]);
    const before = findReplyMsg(saved[1]!)!;
    const started = before.content.find((b): b is ToolResultBlock => b.type === 'tool_result');
    expect(started).toMatchObject({ id: 'c1', state: 'running', output: [] });
    const after = findReplyMsg(saved[2]!)!;
    expect(after.content.find((b) => b.type === 'tool_result')).toMatchObject({ state: 'success' });
  });

  it('are not taken for idempotent tools (only the accepted input is saved)', async () => {
    let saves = 0;
    const model = new ScriptedModel([[toolCallChunk('lookup', { n: 1 })], textChunks('done')]);
    const agent = new Agent({ name: 'a', model, tools: [sideEffect([], undefined, true)] });
    await agent.reply('go', { checkpoint: async () => void saves++ });
    expect(saves).toBe(1);
  });

  it('keep a tool from running when the save before it fails; the reply ends with an error', async () => {
    const runs: number[] = [];
    const model = new ScriptedModel([[toolCallChunk('deploy', { n: 1 }, 'c1')], textChunks('done')]);
    const agent = new Agent({ name: 'a', model, tools: [sideEffect(runs)], logger: silent });
    const msg = await agent.reply('go', {
      checkpoint: async () => {
        throw Object.assign(new Error('lease lost'), { code: 'LEASE_LOST' });
      },
    });
    expect(runs).toEqual([]);
    expect(msg.finishedReason).toBe('error');
    expect(getBlocks(msg, 'tool_result')[0]).toMatchObject({ state: 'error' });
  });

  it('never land after the reply has ended', async () => {
    let inFlight = 0;
    let endedWhileSaving = false;
    const model = new ScriptedModel([[toolCallChunk('deploy', { n: 1 })], textChunks('done')]);
    const agent = new Agent({ name: 'a', model, tools: [sideEffect([])] });
    const reply = agent.reply('go', {
      checkpoint: async () => {
        inFlight++;
        await new Promise((r) => setTimeout(r, 30));
        inFlight--;
      },
    });
    await reply;
    endedWhileSaving = inFlight > 0;
    expect(endedWhileSaving).toBe(false);
  });
});

describe('a reply whose process stopped', () => {
  it('continues from its checkpoint with reply(null): a started tool is not run again, the model is told', async () => {
    const runs: number[] = [];
    let crashState: AgentState | undefined;
    const model = new ScriptedModel([
      [toolCallChunk('deploy', { n: 1 }, 'c1'), usageChunk({ outputTokens: 5 })],
      textChunks('never reached'),
    ]);
    const first = new Agent({ name: 'a', model, tools: [sideEffect(runs)] });
    // The checkpoint before the tool is the last thing that reaches the store: the process then dies.
    await first.reply('go', {
      checkpoint: async (state) => {
        if (!crashState && inToolRound(state)) crashState = snapshot(state);
      },
    });
    expect(runs).toEqual([1]);

    const model2 = new ScriptedModel([
      [...textChunks('checked, it is deployed'), usageChunk({ outputTokens: 7 })],
    ]);
    const second = new Agent({ name: 'a', model: model2, tools: [sideEffect(runs)], state: crashState });
    const checkpointed = structuredClone(findReplyMsg(second.state)!);
    const { events, msg } = await collect(second, null);
    expect(runs).toEqual([1]); // not again
    expect(msg.id).toBe(checkpointed.id);
    expect(msg.finishedReason).toBe('completed');
    expect(events.some((e) => e.type === 'REPLY_START')).toBe(false);
    expect(events[0]).toMatchObject({
      type: 'REPLY_SNAPSHOT',
      replyId: checkpointed.id,
      message: checkpointed,
    });
    const result = getBlocks(msg, 'tool_result')[0]!;
    expect(result.state).toBe('interrupted');
    expect(JSON.stringify(result.output)).toMatch(/may or may not have taken effect/);
    expect(getText(msg)).toBe('checked, it is deployed');
    expect(msg.usage?.outputTokens).toBe(12); // usage of the first process's call is kept
    // The model saw the uncertain result.
    expect(JSON.stringify(model2.requests[0]!.messages)).toMatch(/may or may not have taken effect/);
    // Replaying the recovery's events gives the final message, whatever a client had built before.
    expect(replayEvents(events, checkpointed)).toEqual(msg);
    expect(replayEvents(events, null)).toEqual(msg);
  });

  it('runs an idempotent tool again, its result starting over', async () => {
    const runs: number[] = [];
    let crashState: AgentState | undefined;
    const tool = sideEffect(
      runs,
      (state) => {
        if (!crashState && inToolRound(state)) crashState = snapshot(state); // dies inside the tool: its result is running
      },
      true,
    );
    const first = new Agent({
      name: 'a',
      model: new ScriptedModel([[toolCallChunk('lookup', { n: 1 }, 'c1')], textChunks('x')]),
      tools: [tool],
    });
    await first.reply('go');
    const second = new Agent({
      name: 'a',
      model: new ScriptedModel([textChunks('found it')]),
      tools: [tool],
      state: crashState,
    });
    const checkpointed = structuredClone(findReplyMsg(second.state)!);
    expect(getBlocks(checkpointed, 'tool_result')[0]!.state).toBe('running');
    const { events, msg } = await collect(second, null);
    expect(runs).toEqual([1, 1]);
    const results = getBlocks(msg, 'tool_result');
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ state: 'success', output: [{ type: 'text', text: 'ran 1' }] });
    expect(replayEvents(events, checkpointed)).toEqual(msg);
  });

  it('is ended as interrupted when new input arrives instead, then the new reply runs', async () => {
    const runs: number[] = [];
    let crashState: AgentState | undefined;
    const first = new Agent({
      name: 'a',
      model: new ScriptedModel([[toolCallChunk('deploy', { n: 1 }, 'c1')], textChunks('x')]),
      tools: [sideEffect(runs)],
    });
    await first.reply('go', {
      checkpoint: async (s) => void (!crashState && inToolRound(s) && (crashState = snapshot(s))),
    });
    const stoppedId = crashState!.reply!.id;
    const second = new Agent({
      name: 'a',
      model: new ScriptedModel([textChunks('hello again')]),
      tools: [sideEffect(runs)],
      state: crashState,
    });
    const { events, msg } = await collect(second, 'something else');
    expect(runs).toEqual([1]);
    const old = second.state.context.find((m) => m.id === stoppedId)!;
    expect(old.finishedReason).toBe('interrupted');
    expect(JSON.stringify(getBlocks(old, 'tool_result'))).toMatch(/may or may not have taken effect/);
    expect(events.findIndex((e) => e.type === 'REPLY_END' && e.replyId === stoppedId)).toBeLessThan(
      events.findIndex((e) => e.type === 'REPLY_START'),
    );
    expect(msg.id).not.toBe(stoppedId);
    expect(getText(msg)).toBe('hello again');
  });

  it('is ended by a user interrupt', async () => {
    let crashState: AgentState | undefined;
    const first = new Agent({
      name: 'a',
      model: new ScriptedModel([[toolCallChunk('deploy', { n: 1 })], textChunks('x')]),
      tools: [sideEffect([])],
    });
    await first.reply('go', {
      checkpoint: async (s) => void (!crashState && inToolRound(s) && (crashState = snapshot(s))),
    });
    const second = new Agent({ name: 'a', model: new ScriptedModel([]), tools: [], state: crashState });
    const msg = await second.reply(userInterrupt());
    expect(msg.finishedReason).toBe('interrupted');
  });

  it('settles a stale call next to a paused one when the pause is answered', async () => {
    const runs: number[] = [];
    let crashState: AgentState | undefined;
    const asks = defineTool({
      name: 'ask',
      description: 'needs a yes',
      inputSchema: schema,
      needsConfirmation: true,
      concurrencySafe: true,
      execute: () => 'asked',
    });
    // The deploy call crashes the process while the ask call waits for the user.
    const deploy = sideEffect(runs, (s) => void (crashState ??= snapshot(s)));
    const first = new Agent({
      name: 'a',
      model: new ScriptedModel([
        [toolCallChunk('deploy', { n: 1 }, 'c1'), toolCallChunk('ask', { n: 2 }, 'c2')],
      ]),
      tools: [deploy, asks],
    });
    await first.reply('go');
    const second = new Agent({
      name: 'a',
      model: new ScriptedModel([textChunks('all done')]),
      tools: [deploy, asks],
      state: crashState,
    });
    // The crash state was captured inside deploy, before c2 asked: recover runs the loop, which asks.
    let msg = await second.reply(null);
    expect(msg.finishedReason).toBeNull();
    msg = await second.reply(
      userConfirmResult([{ confirmed: true, toolCall: { id: 'c2', name: 'ask', input: '{"n":2}' } }]),
    );
    expect(runs).toEqual([1]);
    expect(msg.finishedReason).toBe('completed');
    expect(getBlocks(msg, 'tool_result').map((r) => [r.id, r.state])).toEqual([
      ['c1', 'interrupted'],
      ['c2', 'success'],
    ]);
  });
});

describe('the replyId option', () => {
  it('names the new reply, and refuses an id already in the context', async () => {
    const agent = new Agent({ name: 'a', model: new ScriptedModel([textChunks('one'), textChunks('two')]) });
    const msg = await agent.reply('hi', { replyId: 'req-42' });
    expect(msg.id).toBe('req-42');
    await expect(agent.reply('again', { replyId: 'req-42' })).rejects.toMatchObject({
      code: 'INVALID_INPUT',
    });
    await expect(agent.reply('again', { replyId: '' })).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(agent.state.context).toHaveLength(2);
  });
});
