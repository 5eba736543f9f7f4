import {
  Agent,
  type AgentEvent,
  type AgentState,
  assistantMsg,
  ConfigError,
  createAgentState,
  definePlugin,
  defineTool,
  externalExecutionResult,
  type HintBlock,
  type HintBlockEvent,
  type Plugin,
  type TasksCapability,
  userMsg,
} from '@agentkit/core';
import { ScriptedModel, type ScriptedResponse, textChunks, toolCallChunk } from '@agentkit/core/testing';
import { describe, expect, it } from 'vitest';
import type { InjectionConfig } from './injection-config';
import { injection } from './injection-plugin';
import { DEFAULT_INJECTION_SOURCE } from './texts';

const SOURCE = DEFAULT_INJECTION_SOURCE;
const FROZEN_NOW = new Date('2026-07-01T12:00:00Z');
const HEAD =
  '<system-reminder>Treat the following as the ground truth at this point of the conversation. Anything stated earlier is outdated, and a later reminder, if any, supersedes this one:\n';
const TAIL = '\n</system-reminder>';
const TIME = '<current-time>2026-07-01T12:00:00</current-time>\n<timezone>UTC</timezone>';
const wrap = (...fields: string[]) => HEAD + fields.join('\n') + TAIL;

/** A state whose last reply holds an earlier runtime-state injection recording `time` in `timezone`. */
function stateWithInjection(time: string, timezone = 'UTC'): AgentState {
  const state = createAgentState();
  const hint: HintBlock = {
    type: 'hint',
    id: 'earlier-hint',
    hint: `<current-time>${time}</current-time>\n<timezone>${timezone}</timezone>`,
    source: SOURCE,
    createdAt: '2026-07-01T00:00:00.000Z',
  };
  state.context.push(userMsg('earlier question'), assistantMsg([hint], { name: 'Friday' }));
  return state;
}

/** A stand-in for any plugin that provides the `tasks` capability. */
function fakeTasks(counts: { pending: number; inProgress: number }): Plugin {
  const capability: TasksCapability = {
    counts: () => counts,
    toolNames: ['TaskCreate', 'TaskGet', 'TaskList', 'TaskUpdate'],
  };
  return definePlugin({ name: 'fake-tasks', provides: { tasks: capability } });
}

/** A stand-in for any plugin that provides the `compression` capability. */
function fakeCompression(values: {
  triggerRatio?: number;
  contextBufferRatio?: number;
  compressionToolEnabled?: boolean;
}) {
  const capability = { triggerRatio: 0.8, contextBufferRatio: 0.2, compressionToolEnabled: false, ...values };
  return {
    capability,
    plugin: definePlugin({ name: 'fake-compression', provides: { compression: capability } }),
  };
}

interface RunOptions {
  config?: InjectionConfig;
  state?: AgentState;
  script?: ScriptedResponse[];
  model?: ScriptedModel;
  plugins?: Plugin[];
  tools?: ReturnType<typeof defineTool>[];
  input?: string;
}

/**
 * Runs one reply through `replyStream` and returns the HINT_BLOCK events and the runtime-state hints
 * persisted in the reply's message; checks that they match one to one whenever events are on.
 */
async function run(options: RunOptions = {}) {
  const model = options.model ?? new ScriptedModel(options.script ?? [textChunks('ok')]);
  const warnings: string[] = [];
  const agent = new Agent({
    name: 'Friday',
    systemPrompt: 'You are a helpful assistant.',
    model,
    tools: options.tools ?? [],
    plugins: [...(options.plugins ?? []), injection({ now: () => FROZEN_NOW, ...options.config })],
    state: options.state ? JSON.parse(JSON.stringify(options.state)) : undefined,
    logger: { warn: (m: string) => warnings.push(m), error: () => {} },
  });
  const events: HintBlockEvent[] = [];
  let replyId = '';
  for await (const item of agent.replyStream(options.input ?? 'hi')) {
    const event = item as AgentEvent;
    if (event.type === 'REPLY_START') replyId = event.replyId;
    if (event.type === 'HINT_BLOCK') events.push(event);
  }
  const reply = agent.state.context.find((m) => m.id === replyId)!;
  const persisted = reply.content.filter((b): b is HintBlock => b.type === 'hint' && b.source === SOURCE);
  if (options.config?.emitHintEvent !== false) {
    expect(events.map((e) => e.blockId)).toEqual(persisted.map((b) => b.id));
    for (const [i, e] of events.entries())
      expect(persisted[i]).toEqual({
        type: 'hint',
        id: e.blockId,
        hint: e.hint,
        source: e.source,
        createdAt: e.createdAt,
      });
  }
  return { agent, model, events, persisted, hints: persisted.map((b) => b.hint), replyId, warnings };
}

describe('runtime-state injection through the agent (reference agent_injection_test)', () => {
  it('1: the first reply injects time and timezone (event and persisted hint)', async () => {
    const { events, persisted, replyId, model } = await run();
    const hint = wrap(TIME);
    expect(events).toEqual([
      {
        type: 'HINT_BLOCK',
        replyId,
        blockId: expect.any(String),
        source: SOURCE,
        hint,
        createdAt: expect.any(String),
      },
    ]);
    expect(persisted).toEqual([
      { type: 'hint', id: events[0]!.blockId, hint, source: SOURCE, createdAt: expect.any(String) },
    ]);
    // The model sees it in the very call it was injected for.
    const sent = model.requests[0]!.messages.at(-1)!;
    expect(sent.content).toEqual([expect.objectContaining({ type: 'hint', hint })]);
  });

  it('2: a last injection 6 h old injects again; one 10 min old does not', async () => {
    expect((await run({ state: stateWithInjection('2026-07-01T06:00:00') })).hints).toEqual([wrap(TIME)]);
    const recent = await run({ state: stateWithInjection('2026-07-01T11:50:00') });
    expect(recent.events).toEqual([]);
    expect(recent.hints).toEqual([]);
  });

  it('2b: exactly the interval does not inject; a second more does', async () => {
    expect((await run({ state: stateWithInjection('2026-07-01T11:30:00') })).hints).toEqual([]);
    expect((await run({ state: stateWithInjection('2026-07-01T11:29:59') })).hints).toEqual([wrap(TIME)]);
  });

  it('3: a recent injection suppresses; after a compression removed it, the time is injected again', async () => {
    const state = stateWithInjection('2026-07-01T12:00:00');
    expect((await run({ state })).events).toEqual([]);
    const compressed = { ...state, context: [], summary: 'A summary of the previous work.' };
    expect((await run({ state: compressed })).hints).toEqual([wrap(TIME)]);
  });

  it('4: a pending task without task tool calls injects <tasks>; the next reply does not repeat it', async () => {
    const first = await run({
      state: stateWithInjection('2026-07-01T12:00:00'),
      plugins: [fakeTasks({ pending: 1, inProgress: 0 })],
    });
    expect(first.hints).toEqual([
      wrap(
        "<tasks>You have 0 in-progress tasks and 1 pending tasks. Use `TaskList` to view them if you don't know.</tasks>",
      ),
    ]);
    const second = await run({
      state: first.agent.state,
      plugins: [fakeTasks({ pending: 1, inProgress: 0 })],
    });
    expect(second.events).toEqual([]);
  });

  it('4b: a task tool call in the context counts as awareness', async () => {
    const state = stateWithInjection('2026-07-01T12:00:00');
    state.context[1]!.content.push({
      type: 'tool_call',
      id: 'c1',
      name: 'TaskList',
      input: '{}',
      state: 'finished',
    });
    expect((await run({ state, plugins: [fakeTasks({ pending: 2, inProgress: 1 })] })).events).toEqual([]);
    const fresh = await run({ plugins: [fakeTasks({ pending: 2, inProgress: 1 })] });
    expect(fresh.hints[0]).toContain('<tasks>You have 1 in-progress tasks and 2 pending tasks.');
  });

  it('5: the recorded timezone is honoured; the same text read as UTC lies in the future and injects', async () => {
    expect((await run({ state: stateWithInjection('2026-07-01T19:50:00', 'Asia/Shanghai') })).events).toEqual(
      [],
    );
    expect((await run({ state: stateWithInjection('2026-07-01T19:50:00') })).events).toHaveLength(1);
  });

  it('5b: the time is printed in the configured timezone', async () => {
    const { hints } = await run({ config: { timezone: 'Asia/Shanghai' } });
    expect(hints).toEqual([
      wrap('<current-time>2026-07-01T20:00:00</current-time>\n<timezone>Asia/Shanghai</timezone>'),
    ]);
  });

  it('6: extra fields come after the timezone but never trigger alone', async () => {
    const config = { extraFields: { workspace: '/home/friday' } };
    expect((await run({ config })).hints).toEqual([wrap(TIME, '<workspace>/home/friday</workspace>')]);
    expect((await run({ config, state: stateWithInjection('2026-07-01T12:00:00') })).events).toEqual([]);
  });

  it('7: disabled injection emits nothing and persists nothing', async () => {
    const { events, agent } = await run({ config: { injectRuntimeState: false } });
    expect(events).toEqual([]);
    expect(agent.state.context.flatMap((m) => m.content).filter((b) => b.type === 'hint')).toEqual([]);
  });

  it('7b: with emitHintEvent off the hint is persisted without an event', async () => {
    const { events, hints } = await run({ config: { emitHintEvent: false } });
    expect(events).toEqual([]);
    expect(hints).toEqual([wrap(TIME)]);
  });

  const countsTo = (tokens: number) => ({
    contextSize: 1000,
    // Core counts per message plus once for system prompt and tools: put everything in the fixed part.
    countTokens: (input: { messages: readonly unknown[] }) => (input.messages.length === 0 ? tokens : 0),
  });
  const CONTEXT_700 =
    '<context-length>Your current context contains 700 tokens. When reaching 800 tokens, your context will be compressed.</context-length>';

  it('8: near the threshold <context-length> is injected, alone or together with the time', async () => {
    const model = () => new ScriptedModel([textChunks('ok')], countsTo(700));
    expect((await run({ model: model(), state: stateWithInjection('2026-07-01T12:00:00') })).hints).toEqual([
      wrap(CONTEXT_700),
    ]);
    expect((await run({ model: model() })).hints).toEqual([wrap(TIME, CONTEXT_700)]);
    const below = new ScriptedModel([textChunks('ok')], countsTo(600));
    expect((await run({ model: below, state: stateWithInjection('2026-07-01T12:00:00') })).events).toEqual(
      [],
    );
  });

  it('8b: <context-length> is only considered on the first iteration of a reply', async () => {
    const echo = defineTool({
      name: 'echo',
      description: 'echo',
      inputSchema: { type: 'object' },
      execute: () => 'ok',
    });
    const model = new ScriptedModel([[toolCallChunk('echo', {})], textChunks('done')], countsTo(700));
    const { hints } = await run({ model, tools: [echo], state: stateWithInjection('2026-07-01T12:00:00') });
    expect(hints).toEqual([wrap(CONTEXT_700)]);
    expect(model.requests).toHaveLength(2);
  });

  it('8c: with the compression tool on and no task in progress, <context-compression> recommends compressing', async () => {
    const model = () => new ScriptedModel([textChunks('ok')], countsTo(700));
    const state = stateWithInjection('2026-07-01T12:00:00');
    const on = await run({
      model: model(),
      state,
      plugins: [fakeCompression({ compressionToolEnabled: true }).plugin],
    });
    expect(on.hints).toHaveLength(1);
    expect(on.hints[0]).toMatch(
      /<\/context-length>\n<context-compression>.*`CompressContext`.*<\/context-compression>\n<\/system-reminder>$/,
    );
    const busy = await run({
      model: model(),
      state,
      plugins: [
        fakeCompression({ compressionToolEnabled: true }).plugin,
        fakeTasks({ pending: 0, inProgress: 1 }),
      ],
    });
    expect(busy.hints[0]).not.toContain('<context-compression>');
    const off = await run({
      model: model(),
      state,
      plugins: [fakeCompression({ compressionToolEnabled: false }).plugin],
    });
    expect(off.hints).toEqual([wrap(CONTEXT_700)]);
  });

  it('8d: the threshold comes from the compression capability when there is one', async () => {
    const { plugin } = fakeCompression({ triggerRatio: 0.5, contextBufferRatio: 0.1 });
    const model = new ScriptedModel([textChunks('ok')], countsTo(450));
    const { hints } = await run({
      model,
      plugins: [plugin],
      state: stateWithInjection('2026-07-01T12:00:00'),
    });
    expect(hints).toEqual([
      wrap(
        '<context-length>Your current context contains 450 tokens. When reaching 500 tokens, your context will be compressed.</context-length>',
      ),
    ]);
  });

  it('9: a template without {runtime_state} is rejected when the plugin is built', () => {
    expect(() => injection({ template: '<system-reminder></system-reminder>' })).toThrow(ConfigError);
  });

  it('10: braces in the template survive', async () => {
    const { hints } = await run({ config: { template: '{"reminder": "{runtime_state}"}' } });
    expect(hints).toEqual([`{"reminder": "${TIME}"}`]);
  });

  it('11: an invalid timezone is printed as configured and computed in UTC, with a warning', async () => {
    const { hints, warnings } = await run({ config: { timezone: 'Mars/Olympus_Mons' } });
    expect(hints).toEqual([
      wrap('<current-time>2026-07-01T12:00:00</current-time>\n<timezone>Mars/Olympus_Mons</timezone>'),
    ]);
    expect(warnings).toEqual([expect.stringContaining("Unknown timezone 'Mars/Olympus_Mons'")]);
  });
});

describe('repeated tool errors through the agent (cases 12–16)', () => {
  const failing = defineTool({
    name: 'echo',
    description: 'Echo',
    inputSchema: { type: 'object' },
    execute: (input: unknown) =>
      JSON.stringify(input).includes('ok') ? 'fine' : { output: 'boom', state: 'error' as const },
  });
  const fresh = stateWithInjection('2026-07-01T12:00:00');
  const TOOL_ERROR = (count: number) =>
    `<tool-error>The last ${count} calls to 'echo' with the same arguments all failed. Stop retrying the same call as-is, check the error message and try a different approach.</tool-error>`;
  const calls = (...inputs: unknown[]): ScriptedResponse[] => [
    ...inputs.map((i) => [toolCallChunk('echo', i)]),
    textChunks('done'),
  ];

  it('12: three identical failures inject the hint, and it repeats with a growing count', async () => {
    const { hints, model } = await run({
      tools: [failing],
      state: fresh,
      script: calls({ a: 1 }, { a: 1 }, { a: 1 }, { a: 1 }),
    });
    expect(hints).toEqual([wrap(TOOL_ERROR(3)), wrap(TOOL_ERROR(4))]);
    // The hint is in the request of the call right after the third failure.
    expect(JSON.stringify(model.requests[2]!.messages)).not.toContain('<tool-error>');
    expect(JSON.stringify(model.requests[3]!.messages)).toContain('The last 3 calls');
  });

  it('13: reordered keys and whitespace still count as the same arguments', async () => {
    const script: ScriptedResponse[] = [
      [toolCallChunk('echo', '{"a": 1, "b": [1, 2]}')],
      [toolCallChunk('echo', '{"b":[1,2],"a":1}')],
      [toolCallChunk('echo', '{\n "b": [1, 2],\n "a": 1\n}')],
      textChunks('done'),
    ];
    expect((await run({ tools: [failing], state: fresh, script })).hints).toEqual([wrap(TOOL_ERROR(3))]);
  });

  it('14: two failures inject nothing', async () => {
    expect((await run({ tools: [failing], state: fresh, script: calls({ a: 1 }, { a: 1 }) })).events).toEqual(
      [],
    );
  });

  it('15: a success in between resets the count', async () => {
    const script = calls({ a: 1 }, { a: 1 }, { ok: 1 }, { a: 1 }, { a: 1 });
    expect((await run({ tools: [failing], state: fresh, script })).events).toEqual([]);
  });

  it('16: invalid-JSON arguments are compared after trimming', async () => {
    const script: ScriptedResponse[] = [
      [toolCallChunk('echo', '{not json')],
      [toolCallChunk('echo', ' {not json\n')],
      [toolCallChunk('echo', '{not json ')],
      textChunks('done'),
    ];
    expect((await run({ tools: [failing], state: fresh, script })).hints).toEqual([wrap(TOOL_ERROR(3))]);
  });

  it('a custom limit and hint are used; the streak does not carry over into the next reply', async () => {
    const config = { toolRetriesLimit: 4, toolRetriesHint: '{tool_name} failed {count}x' };
    const first = await run({
      config,
      tools: [failing],
      state: fresh,
      script: calls({ a: 1 }, { a: 1 }, { a: 1 }, { a: 1 }),
    });
    expect(first.hints).toEqual([wrap('<tool-error>echo failed 4x</tool-error>')]);
    const second = await run({ config, tools: [failing], state: first.agent.state, script: calls({ a: 1 }) });
    expect(second.events).toEqual([]);
  });
});

describe('a resumed agent keeps deciding from its context', () => {
  it('reloads the recorded time and task awareness from JSON state', async () => {
    const tasks = fakeTasks({ pending: 1, inProgress: 0 });
    const first = await run({ plugins: [tasks] });
    expect(first.hints[0]).toContain('<current-time>2026-07-01T12:00:00</current-time>');
    expect(first.hints[0]).toContain('<tasks>');
    const saved = JSON.parse(JSON.stringify(first.agent.state)) as AgentState;

    const at = (iso: string) => ({ now: () => new Date(iso) });
    const soon = await run({ state: saved, plugins: [tasks], config: at('2026-07-01T12:20:00Z') });
    expect(soon.events).toEqual([]);
    const later = await run({ state: saved, plugins: [tasks], config: at('2026-07-01T13:00:00Z') });
    expect(later.hints).toEqual([
      wrap('<current-time>2026-07-01T13:00:00</current-time>\n<timezone>UTC</timezone>'),
    ]);
  });

  it('continues a failure streak across pauses, each resumed in a new agent from JSON', async () => {
    const echo = defineTool({
      name: 'echo',
      description: 'Echo',
      inputSchema: { type: 'object' },
      external: true,
    });
    let state: AgentState | undefined;
    const hintsPerRun: string[][] = [];
    for (let i = 0; i < 4; i++) {
      const script: ScriptedResponse[] =
        i < 3 ? [[toolCallChunk('echo', { a: 1 }, `call_${i}`)]] : [textChunks('giving up')];
      const agent = new Agent({
        name: 'Friday',
        model: new ScriptedModel(script),
        tools: [echo],
        plugins: [injection({ now: () => FROZEN_NOW })],
        state,
      });
      const input =
        i === 0
          ? 'hi'
          : externalExecutionResult([
              { id: `call_${i - 1}`, output: [{ type: 'text', id: `r${i}`, text: 'boom' }], state: 'error' },
            ]);
      const hints: string[] = [];
      for await (const e of agent.replyStream(input))
        if ((e as AgentEvent).type === 'HINT_BLOCK') hints.push(String((e as HintBlockEvent).hint));
      hintsPerRun.push(hints);
      state = JSON.parse(JSON.stringify(agent.state));
    }
    expect(hintsPerRun).toEqual([
      [wrap(TIME)],
      [],
      [],
      [
        wrap(
          "<tool-error>The last 3 calls to 'echo' with the same arguments all failed. Stop retrying the same call as-is, check the error message and try a different approach.</tool-error>",
        ),
      ],
    ]);
    expect(state!.context.filter((m) => m.role === 'assistant')).toHaveLength(1);
  });
});
