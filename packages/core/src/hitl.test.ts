import { describe, expect, it } from 'vitest';
import { Agent } from './agent';
import { ReplyPausedError, ResumeMismatchError } from './errors/input-errors';
import { externalExecutionResult, userConfirmResult, userInterrupt, type AgentEvent } from './events';
import type { ToolCallBlock } from './blocks';
import { getText } from './msg';
import { awaitingToolCalls } from './reply-input';
import { defineTool } from './define-tool';
import type { Tool } from './tool';
import { ScriptedModel, textChunks, toolCallChunk } from './testing/scripted-model';

const objectSchema = { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] };

function makeTools(log: string[]) {
  const bash = defineTool<{ cmd: string }>({
    name: 'bash',
    description: 'run a command',
    inputSchema: objectSchema,
    needsConfirmation: true,
    concurrencySafe: true,
    execute: ({ cmd }) => {
      log.push(`bash:${cmd}`);
      return `ran ${cmd}`;
    },
  });
  const write = defineTool<{ cmd: string }>({
    name: 'write',
    description: 'write a file',
    inputSchema: objectSchema,
    needsConfirmation: true,
    concurrencySafe: true,
    execute: ({ cmd }) => {
      log.push(`write:${cmd}`);
      return 'written';
    },
  });
  const remote = defineTool<{ cmd: string }>({
    name: 'remote',
    description: 'runs elsewhere',
    inputSchema: objectSchema,
    external: true,
    concurrencySafe: true,
  });
  return { bash, write, remote };
}

async function stream(agent: Agent, input: Parameters<Agent['reply']>[0]) {
  const events: AgentEvent[] = [];
  for await (const e of agent.replyStream(input)) events.push(e as AgentEvent);
  return events;
}
const calls = (agent: Agent) =>
  agent.state.context.at(-1)!.content.filter((b): b is ToolCallBlock => b.type === 'tool_call');
const reload = (agent: Agent, model: ScriptedModel, tools: Tool[]) =>
  new Agent({ name: agent.name, model, tools, state: JSON.parse(JSON.stringify(agent.state)) });

describe('human in the loop: user confirmation', () => {
  it('should pause for one call, resume in a new agent from JSON, and never run a call twice', async () => {
    const log: string[] = [];
    const { bash } = makeTools(log);
    const model = new ScriptedModel([[toolCallChunk('bash', { cmd: 'ls' }, 'c1')], textChunks('listed')]);
    const agent = new Agent({ name: 'a', model, tools: [bash] });
    const events = await stream(agent, 'list files');
    expect(events.at(-1)).toMatchObject({
      type: 'REQUIRE_USER_CONFIRM',
      toolCalls: [{ id: 'c1', state: 'asking' }],
    });
    expect(events.some((e) => e.type === 'REPLY_END')).toBe(false);
    const paused = await new Agent({ name: 'a', model, tools: [bash], state: agent.state })
      .reply(null)
      .catch((e) => e);
    expect(paused).toBeInstanceOf(ReplyPausedError);

    const resumed = reload(agent, model, [bash]);
    const msg = await resumed.reply(
      userConfirmResult([
        { confirmed: true, toolCall: { id: 'c1', name: 'bash', input: '{"cmd":"ls -la"}' } },
      ]),
    );
    expect(log).toEqual(['bash:ls -la']);
    expect(msg.finishedReason).toBe('completed');
    expect(getText(msg)).toBe('listed');
    expect(resumed.state.reply?.iteration).toBe(2);
    // Confirming again is refused: nothing is asking any more.
    await expect(
      resumed.reply(
        userConfirmResult([{ confirmed: true, toolCall: { id: 'c1', name: 'bash', input: '{}' } }]),
      ),
    ).rejects.toBeInstanceOf(ResumeMismatchError);
    expect(log).toHaveLength(1);
  });

  it('should return the waiting message with finishedReason null from reply()', async () => {
    const { bash } = makeTools([]);
    const agent = new Agent({
      name: 'a',
      model: new ScriptedModel([[toolCallChunk('bash', { cmd: 'x' }, 'c1')]]),
      tools: [bash],
    });
    const msg = await agent.reply('go');
    expect(msg.finishedReason).toBeNull();
    expect(msg.finishedAt).toBeNull();
    expect(msg.content.find((b) => b.type === 'tool_call')).toMatchObject({
      state: 'asking',
      suggestedRules: [{ toolName: 'bash', behavior: 'allow' }],
    });
  });

  it('should send a denied result back to the model', async () => {
    const log: string[] = [];
    const { bash } = makeTools(log);
    const model = new ScriptedModel([
      [toolCallChunk('bash', { cmd: 'rm -rf /' }, 'c1')],
      textChunks('ok, not doing it'),
    ]);
    const agent = new Agent({ name: 'a', model, tools: [bash] });
    await agent.reply('go');
    const events = await stream(
      agent,
      userConfirmResult([{ confirmed: false, toolCall: { id: 'c1', name: 'bash', input: '{}' } }]),
    );
    expect(events.map((e) => e.type).slice(0, 3)).toEqual([
      'TOOL_RESULT_START',
      'TOOL_RESULT_TEXT_DELTA',
      'TOOL_RESULT_END',
    ]);
    expect(events[1]).toMatchObject({
      delta: '<system-reminder>The execution of tool "bash" is denied by user!</system-reminder>',
    });
    expect(events[2]).toMatchObject({ state: 'denied' });
    expect(log).toEqual([]);
    expect(model.requests[1]!.messages.at(-1)!.content.find((b) => b.type === 'tool_result')).toMatchObject({
      state: 'denied',
    });
  });

  it('should ask once for concurrent calls of the same tool; without a rule the second asks later, with the rule it runs', async () => {
    for (const withRule of [false, true]) {
      const log: string[] = [];
      const { bash } = makeTools(log);
      const model = new ScriptedModel([
        [toolCallChunk('bash', { cmd: 'a' }, 'c1'), toolCallChunk('bash', { cmd: 'b' }, 'c2')],
        textChunks('both done'),
      ]);
      const agent = new Agent({ name: 'a', model, tools: [bash] });
      const first = await stream(agent, 'go');
      expect(first.filter((e) => e.type === 'REQUIRE_USER_CONFIRM')).toHaveLength(1);
      expect(calls(agent).map((c) => c.state)).toEqual(['asking', 'pending']);
      const rules = withRule ? calls(agent)[0]!.suggestedRules : null;
      const second = await stream(
        agent,
        userConfirmResult([
          { confirmed: true, toolCall: { id: 'c1', name: 'bash', input: '{"cmd":"a"}' }, rules },
        ]),
      );
      if (withRule) {
        expect(log).toEqual(['bash:a', 'bash:b']);
        expect(second.at(-1)).toMatchObject({ type: 'REPLY_END', finishedReason: 'completed' });
        expect(agent.state.permissions.allow).toEqual([
          { toolName: 'bash', ruleContent: null, behavior: 'allow' },
        ]);
      } else {
        expect(log).toEqual(['bash:a']);
        expect(second.filter((e) => e.type === 'REQUIRE_USER_CONFIRM')).toMatchObject([
          { toolCalls: [{ id: 'c2' }] },
        ]);
        expect(second.some((e) => e.type === 'REPLY_END')).toBe(false);
        await agent.reply(
          userConfirmResult([
            { confirmed: true, toolCall: { id: 'c2', name: 'bash', input: '{"cmd":"b"}' } },
          ]),
        );
        expect(log).toEqual(['bash:a', 'bash:b']);
      }
    }
  });

  it('should confirm two different tools in one event and not advance the iteration on a partial answer', async () => {
    const log: string[] = [];
    const { bash, write } = makeTools(log);
    const model = new ScriptedModel([
      [toolCallChunk('bash', { cmd: 'a' }, 'c1'), toolCallChunk('write', { cmd: 'b' }, 'c2')],
      textChunks('done'),
    ]);
    const agent = new Agent({ name: 'a', model, tools: [bash, write] });
    const first = await stream(agent, 'go');
    expect(first.filter((e) => e.type === 'REQUIRE_USER_CONFIRM')).toHaveLength(2);
    // Partial: only c1 answered; c2 still asks and no new prompt is sent for it.
    const partial = await stream(
      agent,
      userConfirmResult([{ confirmed: true, toolCall: { id: 'c1', name: 'bash', input: '{"cmd":"a"}' } }]),
    );
    expect(partial.some((e) => e.type === 'REQUIRE_USER_CONFIRM')).toBe(false);
    expect(agent.state.reply?.iteration).toBe(0);
    expect(log).toEqual(['bash:a']);
    const msg = await agent.reply(
      userConfirmResult([{ confirmed: true, toolCall: { id: 'c2', name: 'write', input: '{"cmd":"b"}' } }]),
    );
    expect(log).toEqual(['bash:a', 'write:b']);
    expect(msg.finishedReason).toBe('completed');
    expect(model.callCount).toBe(2);
  });

  it('refuses a confirmation that names another tool than the call it confirms, and stays paused', async () => {
    const log: string[] = [];
    const { bash, write } = makeTools(log);
    const model = new ScriptedModel([[toolCallChunk('bash', { cmd: 'a' }, 'c1')], textChunks('done')]);
    const agent = new Agent({ name: 'a', model, tools: [bash, write] });
    await stream(agent, 'go');
    for (const name of ['write', 'no_such_tool'])
      await expect(
        agent.reply(
          userConfirmResult([{ confirmed: true, toolCall: { id: 'c1', name, input: '{"cmd":"x"}' } }]),
        ),
      ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    expect(log).toEqual([]);
    expect(awaitingToolCalls(agent.state).map((c) => c.id)).toEqual(['c1']);
    // The input may still be edited.
    await agent.reply(
      userConfirmResult([{ confirmed: true, toolCall: { id: 'c1', name: 'bash', input: '{"cmd":"b"}' } }]),
    );
    expect(log).toEqual(['bash:b']);
  });

  it('should stop a sequential run at the first confirmation', async () => {
    const log: string[] = [];
    const { bash } = makeTools(log);
    const seqBash = { ...bash, concurrencySafe: false };
    const model = new ScriptedModel([
      [toolCallChunk('bash', { cmd: 'a' }, 'c1'), toolCallChunk('bash', { cmd: 'b' }, 'c2')],
      textChunks('done'),
    ]);
    const agent = new Agent({ name: 'a', model, tools: [seqBash] });
    await agent.reply('go');
    expect(calls(agent).map((c) => c.state)).toEqual(['asking', 'pending']);
    await agent.reply(
      userConfirmResult([{ confirmed: true, toolCall: { id: 'c1', name: 'bash', input: '{"cmd":"a"}' } }]),
    );
    expect(calls(agent).map((c) => c.state)).toEqual(['finished', 'asking']);
  });

  it('should refuse confirm results for calls that are not asking', async () => {
    const { bash } = makeTools([]);
    const agent = new Agent({
      name: 'a',
      model: new ScriptedModel([[toolCallChunk('bash', { cmd: 'a' }, 'c1')]]),
      tools: [bash],
    });
    await expect(agent.reply(userConfirmResult([]))).rejects.toBeInstanceOf(ResumeMismatchError);
    await agent.reply('go');
    await expect(
      agent.reply(
        userConfirmResult([{ confirmed: true, toolCall: { id: 'nope', name: 'bash', input: '{}' } }]),
      ),
    ).rejects.toThrow(/'nope'/);
    await expect(
      agent.reply(externalExecutionResult([{ id: 'c1', output: 'x', state: 'success' }])),
    ).rejects.toBeInstanceOf(ResumeMismatchError);
  });
});

describe('human in the loop: external execution', () => {
  it('should not call the model again until every external result has arrived', async () => {
    const { remote } = makeTools([]);
    const model = new ScriptedModel([
      [toolCallChunk('remote', { cmd: 'a' }, 'e1'), toolCallChunk('remote', { cmd: 'b' }, 'e2')],
      textChunks('got both'),
    ]);
    const agent = new Agent({ name: 'a', model, tools: [remote] });
    const first = await stream(agent, 'go');
    expect(first.filter((e) => e.type === 'REQUIRE_EXTERNAL_EXECUTION')).toHaveLength(2);
    expect(first.filter((e) => e.type === 'TOOL_RESULT_START')).toHaveLength(2);
    const partial = await stream(
      reload(agent, model, [remote]),
      externalExecutionResult([{ id: 'e1', output: 'A', state: 'success' }]),
    );
    expect(partial.map((e) => e.type)).toEqual(['TOOL_RESULT_TEXT_DELTA', 'TOOL_RESULT_END']);
    expect(model.callCount).toBe(1);
  });

  it('should accept both results in one event, then answer', async () => {
    const { remote } = makeTools([]);
    const model = new ScriptedModel([
      [toolCallChunk('remote', { cmd: 'a' }, 'e1'), toolCallChunk('remote', { cmd: 'b' }, 'e2')],
      textChunks('got both'),
    ]);
    const agent = new Agent({ name: 'a', model, tools: [remote] });
    await agent.reply('go');
    const msg = await agent.reply(
      externalExecutionResult([
        { id: 'e2', output: [{ type: 'text', text: 'B' }], state: 'success' },
        { id: 'e1', output: 'A', state: 'error' },
      ]),
    );
    expect(msg.finishedReason).toBe('completed');
    const results = msg.content.filter((b) => b.type === 'tool_result');
    expect(results.map((r) => [r.id, r.state, r.output[0]])).toEqual([
      ['e1', 'error', expect.objectContaining({ text: 'A' })],
      ['e2', 'success', expect.objectContaining({ text: 'B' })],
    ]);
    expect(model.requests[1]!.messages.at(-1)!.content.filter((b) => b.type === 'tool_result')).toHaveLength(
      2,
    );
  });

  it('should chain a confirmation into an external execution', async () => {
    const { remote } = makeTools([]);
    const guarded = { ...remote, needsConfirmation: true };
    const model = new ScriptedModel([
      [toolCallChunk('remote', { cmd: 'deploy' }, 'e1')],
      textChunks('deployed'),
    ]);
    const agent = new Agent({ name: 'a', model, tools: [guarded] });
    const first = await stream(agent, 'go');
    expect(first.at(-1)?.type).toBe('REQUIRE_USER_CONFIRM');
    const second = await stream(
      agent,
      userConfirmResult([
        { confirmed: true, toolCall: { id: 'e1', name: 'remote', input: '{"cmd":"deploy"}' } },
      ]),
    );
    expect(second.map((e) => e.type)).toEqual(['TOOL_RESULT_START', 'REQUIRE_EXTERNAL_EXECUTION']);
    const msg = await agent.reply(externalExecutionResult([{ id: 'e1', output: 'ok', state: 'success' }]));
    expect(getText(msg)).toBe('deployed');
  });
});

describe('interrupting a paused reply', () => {
  it('should close asking and submitted calls as interrupted, with exactly one TOOL_RESULT_START per external call', async () => {
    const { bash, remote } = makeTools([]);
    const model = new ScriptedModel([
      [toolCallChunk('bash', { cmd: 'a' }, 'c1'), toolCallChunk('remote', { cmd: 'b' }, 'e1')],
    ]);
    const agent = new Agent({ name: 'a', model, tools: [bash, remote] });
    const first = await stream(agent, 'go');
    const events = await stream(agent, userInterrupt());
    const all = [...first, ...events];
    expect(all.filter((e) => e.type === 'TOOL_RESULT_START' && e.toolCallId === 'e1')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishedReason: 'interrupted' });
    const results = agent.state.context.at(-1)!.content.filter((b) => b.type === 'tool_result');
    expect(results.map((r) => r.state)).toEqual(['interrupted', 'interrupted']);
    expect(calls(agent).every((c) => c.state === 'finished')).toBe(true);
    // The agent accepts new input afterwards.
    model.push(textChunks('hi again'));
    expect((await agent.reply('next')).finishedReason).toBe('completed');
  });

  it('should treat a user interrupt on an idle agent as a silent no-op', async () => {
    const agent = new Agent({ name: 'a', model: new ScriptedModel([textChunks('hello')]) });
    await agent.reply('hi');
    const before = JSON.stringify(agent.state);
    expect(await stream(agent, userInterrupt())).toEqual([]);
    expect(JSON.stringify(agent.state)).toBe(before);
  });
});
