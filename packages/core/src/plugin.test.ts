import { describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { Agent } from './agent';
import { ConfigError } from './errors/config-error';
import { StateError } from './errors/state-error';
import type { AgentEvent } from './events';
import { getText } from './msg';
import { definePlugin, type Plugin, type PluginContext, type PluginToolContext } from './plugin';
import { replayEvents } from './replay-events';
import { defineTool } from './define-tool';
import { ScriptedModel, textChunks, toolCallChunk } from './testing/scripted-model';

const echo = defineTool({
  name: 'echo',
  description: 'echo',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
  execute: ({ text }: { text: string }) => text,
});

async function events(agent: Agent, input: Parameters<Agent['reply']>[0], options = {}) {
  const out: AgentEvent[] = [];
  for await (const e of agent.replyStream(input, options)) out.push(e as AgentEvent);
  return out;
}

describe('plugins and hooks', () => {
  it('should run interceptors in enforce then registration order, with per-hook order overrides', async () => {
    const calls: string[] = [];
    const p = (name: string, enforce?: 'pre' | 'post', order?: 'pre' | 'post'): Plugin => ({
      name,
      enforce,
      hooks: {
        beforeInference: order
          ? { order, handler: () => void calls.push(name) }
          : () => void calls.push(name),
      },
    });
    const agent = new Agent({
      name: 'a',
      model: new ScriptedModel([textChunks('x')]),
      plugins: [
        p('n1'),
        p('post1', 'post'),
        [p('pre1', 'pre'), false, null],
        p('n2'),
        p('hookpre', undefined, 'pre'),
      ],
    });
    await agent.reply('hi');
    expect(calls).toEqual(['pre1', 'hookpre', 'n1', 'n2', 'post1']);
  });

  it('should let a plugin add a persisted, emitted hint and change the next request', async () => {
    const model = new ScriptedModel([textChunks('ok')]);
    const plugin = definePlugin({
      name: 'reminder',
      hooks: {
        beforeInference({ ctx, request }) {
          ctx.addHint('<reminder>be brief</reminder>');
          return { ...request, toolChoice: 'none', systemPrompt: `${request.systemPrompt} [edited]` };
        },
      },
    });
    const agent = new Agent({ name: 'a', systemPrompt: 'sys', model, plugins: [plugin], tools: [echo] });
    const evs = await events(agent, 'hi');
    expect(evs.map((e) => e.type).slice(0, 3)).toEqual(['REPLY_START', 'HINT_BLOCK', 'MODEL_CALL_START']);
    expect(model.requests[0]).toMatchObject({ systemPrompt: 'sys [edited]', toolChoice: 'none' });
    // The request carries the hint even though the hook returned its own request object.
    expect(model.requests[0]!.messages.at(-1)!.content[0]).toMatchObject({
      type: 'hint',
      hint: '<reminder>be brief</reminder>',
      source: 'reminder',
    });
    expect(replayEvents(evs)).toEqual(agent.state.context.at(-1));
  });

  it('should let beforeTool deny, ask, or replace the input; first decision wins', async () => {
    const seen: unknown[] = [];
    const tool = defineTool({
      ...echo,
      execute: (input: { text: string }) => {
        seen.push(input);
        return input.text;
      },
    });
    const plugins: Plugin[] = [
      {
        name: 'rewrite',
        hooks: { beforeTool: ({ input }) => ({ input: { text: `${(input as { text: string }).text}!` } }) },
      },
      {
        name: 'deny-secret',
        hooks: {
          beforeTool: ({ input }) =>
            (input as { text: string }).text.includes('secret')
              ? { decision: 'deny', message: 'no secrets' }
              : undefined,
        },
      },
      { name: 'never-reached-for-secrets', hooks: { beforeTool: () => ({ decision: 'allow' }) } },
    ];
    const model = new ScriptedModel([
      [toolCallChunk('echo', { text: 'hi' }, 'a'), toolCallChunk('echo', { text: 'secret' }, 'b')],
      textChunks('done'),
    ]);
    const agent = new Agent({ name: 'a', model, tools: [tool], plugins });
    const msg = await agent.reply('go');
    expect(seen).toEqual([{ text: 'hi!' }]);
    const results = msg.content.filter((b) => b.type === 'tool_result');
    expect(results.map((r) => [r.state, (r.output[0] as { text: string }).text])).toEqual([
      ['success', 'hi!'],
      ['denied', 'no secrets'],
    ]);
  });

  it('should let afterTool replace the saved result while the stream keeps the full output', async () => {
    const model = new ScriptedModel([
      [toolCallChunk('echo', { text: 'a very long output' }, 'c1')],
      textChunks('done'),
    ]);
    const plugin: Plugin = {
      name: 'truncate',
      hooks: {
        afterTool: ({ result }) => ({ ...result, output: [{ type: 'text', id: 't', text: 'a very…' }] }),
      },
    };
    const agent = new Agent({ name: 'a', model, tools: [echo], plugins: [plugin] });
    const evs = await events(agent, 'go');
    expect(evs.find((e) => e.type === 'TOOL_RESULT_TEXT_DELTA')).toMatchObject({
      delta: 'a very long output',
    });
    expect(evs.find((e) => e.type === 'TOOL_RESULT_END')).toMatchObject({ output: [{ text: 'a very…' }] });
    expect(agent.state.context.at(-1)!.content[1]).toMatchObject({ output: [{ text: 'a very…' }] });
    expect(model.requests[1]!.messages.at(-1)!.content[1]).toMatchObject({ output: [{ text: 'a very…' }] });
    expect(replayEvents(evs)).toEqual(agent.state.context.at(-1));
  });

  it('should let beforeFinish refuse to finish and continue with a hint and a tool choice', async () => {
    const model = new ScriptedModel([textChunks('first'), textChunks('second')]);
    let refused = false;
    const plugin: Plugin = {
      name: 'again',
      hooks: {
        beforeFinish: () => {
          if (refused) return;
          refused = true;
          return { continue: true, hint: 'try again', toolChoice: 'none' };
        },
      },
    };
    const agent = new Agent({ name: 'a', model, plugins: [plugin] });
    const msg = await agent.reply('go');
    expect(model.callCount).toBe(2);
    expect(model.requests[1]!.toolChoice).toBe('none');
    expect(msg.content.map((b) => b.type)).toEqual(['text', 'hint', 'text']);
    expect(getText(msg)).toBe('first\nsecond');
  });

  it('should end the reply with an error naming the plugin and hook when an interceptor throws', async () => {
    const plugin: Plugin = {
      name: 'broken',
      hooks: {
        beforeInference: () => {
          throw new Error('boom');
        },
      },
    };
    const agent = new Agent({
      name: 'a',
      model: new ScriptedModel([textChunks('never')]),
      plugins: [plugin],
    });
    const msg = await agent.reply('go');
    expect(msg.finishedReason).toBe('error');
    expect(msg.error).toEqual({
      type: 'internal',
      message: "Plugin 'broken' failed in hook 'beforeInference': boom",
    });
  });

  it('should report observer failures without failing the reply', async () => {
    const logger = { warn: vi.fn(), error: vi.fn() };
    const errors: unknown[] = [];
    const plugins: Plugin[] = [
      {
        name: 'bad-observer',
        hooks: {
          onReplyEnd: () => {
            throw new Error('observer failed');
          },
        },
      },
      { name: 'watcher', hooks: { onError: (e) => void errors.push([e.plugin, e.hook]) } },
    ];
    const agent = new Agent({ name: 'a', model: new ScriptedModel([textChunks('fine')]), plugins, logger });
    const msg = await agent.reply('go');
    expect(msg.finishedReason).toBe('completed');
    expect(errors).toEqual([['bad-observer', 'onReplyEnd']]);
    expect(logger.error).toHaveBeenCalled();
  });

  it('should observe pauses with the state holding everything to resume', async () => {
    const paused: string[] = [];
    const tool = defineTool({ ...echo, needsConfirmation: true });
    const plugin: Plugin = {
      name: 'obs',
      hooks: { onPause: ({ awaiting }) => void paused.push(...awaiting.map((c) => c.id)) },
    };
    const agent = new Agent({
      name: 'a',
      model: new ScriptedModel([[toolCallChunk('echo', { text: 'x' }, 'c9')]]),
      tools: [tool],
      plugins: [plugin],
    });
    await agent.reply('go');
    expect(paused).toEqual(['c9']);
  });

  it('should keep per-plugin state slots with initial values and validate loaded ones', async () => {
    const counter = definePlugin<{ replies: number }>({
      name: 'counter',
      state: {
        initial: () => ({ replies: 0 }),
        schema: (v) => {
          if (typeof (v as { replies?: unknown }).replies !== 'number')
            throw new Error('replies must be a number');
          return v as { replies: number };
        },
      },
      hooks: {
        onReplyEnd: ({ ctx }) => ctx.setState({ replies: ctx.getState().replies + 1 }),
      },
    });
    const model = new ScriptedModel([textChunks('a'), textChunks('b')]);
    const agent = new Agent({ name: 'a', model, plugins: [counter] });
    await agent.reply('1');
    const next = new Agent({ name: 'a', model, plugins: [counter], state: JSON.stringify(agent.state) });
    await next.reply('2');
    expect(next.state.plugins.counter).toEqual({ replies: 2 });
    const bad = { ...agent.state, plugins: { counter: { replies: 'x' } } };
    expect(() => new Agent({ name: 'a', model, plugins: [counter], state: bad })).toThrow(StateError);
    expect(() => new Agent({ name: 'a', model, plugins: [counter], state: bad })).toThrow(/plugin 'counter'/);
  });

  it('should check plugin names, dependencies and capabilities when the agent is built', () => {
    const model = new ScriptedModel([]);
    expect(() => new Agent({ name: 'a', model, plugins: [{ name: 'x' }, { name: 'x' }] })).toThrow(
      /installed twice/,
    );
    expect(
      () =>
        new Agent({
          name: 'a',
          model,
          plugins: [{ name: 'h', hooks: { onPause: { order: 'pre' } as never } }],
        }),
    ).toThrow(/hook 'onPause' needs a function/);
    expect(() => new Agent({ name: 'a', model, plugins: [{ name: 'x', dependencies: ['y'] }] })).toThrow(
      ConfigError,
    );
    expect(() => new Agent({ name: 'a', model, plugins: [{ name: 'x', dependencies: ['y'] }] })).toThrow(
      "Plugin 'x' needs plugin 'y'",
    );
    const cap = { counts: () => ({ pending: 0, inProgress: 0 }), toolNames: [] };
    expect(
      () =>
        new Agent({
          name: 'a',
          model,
          plugins: [
            { name: 'x', provides: { tasks: cap } },
            { name: 'y', provides: { tasks: cap } },
          ],
        }),
    ).toThrow(/capability 'tasks'/);
    let seen: unknown;
    new Agent({
      name: 'a',
      model,
      plugins: [
        { name: 'x', provides: { tasks: cap } },
        { name: 'y', setup: (ctx) => void (seen = ctx.capability('tasks')) },
      ],
    });
    expect(seen).toBe(cap);
    expect(
      () =>
        new Agent({
          name: 'a',
          model,
          plugins: [
            {
              name: 'z',
              setup: () => {
                throw new Error('bad field');
              },
            },
          ],
        }),
    ).toThrow(/Plugin 'z' failed in setup: bad field/);
  });

  it('should keep per-reply options across a pause through reply data', async () => {
    const tool = defineTool({ ...echo, needsConfirmation: true });
    const seen: unknown[] = [];
    const plugin: Plugin = {
      name: 'opts',
      hooks: {
        beforeReply: ({ ctx, input, options }) => {
          if (input.kind !== 'resume') ctx.setReplyData({ flavour: options.flavour as string });
        },
        beforeInference: ({ ctx }) => void seen.push(ctx.getReplyData()),
      },
    };
    const model = new ScriptedModel([[toolCallChunk('echo', { text: 'x' }, 'c1')], textChunks('done')]);
    const agent = new Agent({ name: 'a', model, tools: [tool], plugins: [plugin] });
    await agent.reply('go', { flavour: 'mint' });
    const resumed = new Agent({
      name: 'a',
      model,
      tools: [tool],
      plugins: [plugin],
      state: JSON.parse(JSON.stringify(agent.state)),
    });
    await resumed.reply({
      type: 'USER_CONFIRM_RESULT',
      confirmResults: [{ confirmed: true, toolCall: { id: 'c1', name: 'echo', input: '{"text":"x"}' } }],
    });
    expect(seen).toEqual([{ flavour: 'mint' }, { flavour: 'mint' }]);
  });

  it('should let a hook end the reply before the next model call with a limit reason', async () => {
    const model = new ScriptedModel([[toolCallChunk('echo', { text: 'x' }, 'c1')], textChunks('never sent')]);
    let calls = 0;
    const guard: Plugin = {
      name: 'guard',
      hooks: {
        beforeInference: ({ ctx }) => void (++calls === 2 && ctx.finishReply({ reason: 'exceed_max_iters' })),
      },
    };
    const agent = new Agent({ name: 'a', model, tools: [echo], plugins: [guard] });
    const evs = await events(agent, 'go');
    expect(model.callCount).toBe(1);
    expect(evs.at(-1)).toMatchObject({ type: 'REPLY_END', finishedReason: 'exceed_max_iters', error: null });
    expect(agent.state.context.at(-1)!.finishedReason).toBe('exceed_max_iters');
  });

  it('should add the closing text given to finishReply, streamed and persisted', async () => {
    const model = new ScriptedModel([textChunks('thinking out loud')]);
    const closer: Plugin = {
      name: 'closer',
      hooks: {
        beforeFinish: ({ ctx }) => void ctx.finishReply({ structuredOutput: { ok: true }, text: 'Done.' }),
      },
    };
    const agent = new Agent({ name: 'a', model, plugins: [closer] });
    const evs = await events(agent, 'go');
    const msg = agent.state.context.at(-1)!;
    expect(msg.finishedReason).toBe('completed');
    expect(msg.structuredOutput).toEqual({ ok: true });
    expect(getText(msg)).toBe('thinking out loud\nDone.');
    expect(replayEvents(evs)).toEqual(msg);
  });
});

describe('compression mid-reply', () => {
  it('should return every block the reply produced even when a compression removed the earlier ones', async () => {
    const model = new ScriptedModel([
      [toolCallChunk('echo', { text: 'one' }, 'c1')],
      textChunks('final answer'),
    ]);
    let calls = 0;
    const squash: Plugin = {
      name: 'squash',
      hooks: {
        beforeInference: ({ ctx }) => {
          if (++calls !== 2) return;
          // Summarise everything so far away, keeping no part of the reply's message.
          ctx.replaceContext({ summary: 'earlier work', context: [] });
        },
      },
    };
    const agent = new Agent({ name: 'a', model, tools: [echo], plugins: [squash] });
    const msg = await agent.reply('go');
    expect(msg.content.map((b) => b.type)).toEqual(['tool_call', 'tool_result', 'text']);
    // The state holds only what was kept (plus what came after).
    expect(agent.state.context.at(-1)!.content.map((b) => b.type)).toEqual(['text']);
    expect(agent.state.summary).toBe('earlier work');
  });

  it('should give a plugin one context per reply run, shared by its hooks and tools and bound to that run', async () => {
    const seen: Array<{ ctx: PluginContext; replyId: string; signal: AbortSignal }> = [];
    let toolCtx: PluginContext | undefined;
    const probe = defineTool({
      name: 'probe',
      description: 'looks at its plugin context',
      inputSchema: { type: 'object' },
      execute: (_input, t: PluginToolContext<number>) => {
        toolCtx = t.plugin;
        return 'ok';
      },
    });
    const plugin: Plugin<number> = {
      name: 'watch',
      state: { initial: () => 0 },
      tools: [probe],
      hooks: {
        beforeInference({ ctx }) {
          ctx.setState(ctx.getState() + 1);
          seen.push({ ctx, replyId: ctx.reply.id, signal: ctx.signal });
        },
      },
    };
    const other: Plugin = {
      name: 'other',
      hooks: {
        beforeInference: ({ ctx }) => void seen.push({ ctx, replyId: ctx.reply.id, signal: ctx.signal }),
      },
    };
    const agent = new Agent({
      name: 'a',
      model: new ScriptedModel([[toolCallChunk('probe', {})], textChunks('one'), textChunks('two')]),
      plugins: [plugin, other],
    });
    const first = await agent.reply('1');
    const second = await agent.reply('2');
    const [w1a, o1a, w1b, o1b, w2, o2] = seen;
    // Within a run: one ctx per plugin, for every hook call and for the plugin's tools.
    expect(w1a!.ctx).toBe(w1b!.ctx);
    expect(o1a!.ctx).toBe(o1b!.ctx);
    expect(w1a!.ctx).not.toBe(o1a!.ctx);
    expect(toolCtx).toBe(w1a!.ctx);
    // Each run has its own.
    expect(w2!.ctx).not.toBe(w1a!.ctx);
    expect(o2!.ctx).not.toBe(o1a!.ctx);
    expect([w1a!.replyId, w2!.replyId]).toEqual([first.id, second.id]);
    expect(w1a!.signal).not.toBe(w2!.signal);
    expect(agent.state.plugins.watch).toBe(3);
    // A ctx kept past its run still acts on that run, not on the next reply (nor on a refused one).
    await expect(agent.reply('3', { structuredSchema: z.object({}) })).rejects.toBeInstanceOf(ConfigError);
    expect(w1a!.ctx.reply.id).toBe(second.id); // the state's reply position is live state, shared
    expect(w1a!.ctx.signal).toBe(w1a!.signal);
    expect(w1a!.ctx.tools.map((t) => t.name)).toEqual(['probe']);
  });

  it('should refuse a structuredSchema no installed plugin reads, before the reply touches the state', async () => {
    const schema = z.object({ answer: z.string() });
    const bare = new Agent({ name: 'a', model: new ScriptedModel([textChunks('hi')]) });
    const refused = await bare.reply('x', { structuredSchema: schema }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ConfigError);
    expect((refused as ConfigError).field).toBe('structuredSchema');
    expect(bare.state.context).toEqual([]);
    const streamed = bare.replyStream('x', { structuredSchema: schema });
    await expect(streamed.next()).rejects.toBeInstanceOf(ConfigError);
    // Once the refused input is fixed the agent replies normally.
    expect((await bare.reply('x')).finishedReason).toBe('completed');

    const reader: Plugin = { name: 'reader', replyOptions: ['structuredSchema'] };
    const withReader = new Agent({
      name: 'a',
      model: new ScriptedModel([textChunks('hi')]),
      plugins: [reader],
    });
    expect((await withReader.reply('x', { structuredSchema: schema })).finishedReason).toBe('completed');
  });

  it('should run work exclusively between replies', async () => {
    const agent = new Agent({
      name: 'a',
      model: new ScriptedModel([{ chunks: textChunks('a b'), delayMs: 5 }]),
    });
    const running = agent.reply('go');
    await expect(agent.runExclusive(async () => 1)).rejects.toThrow(/already running/);
    await running;
    expect(await agent.runExclusive(async () => 2)).toBe(2);
  });
});
