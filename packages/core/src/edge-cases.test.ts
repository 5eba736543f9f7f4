// Review findings: every test here fails against the current kernel and shows one confirmed defect.
import { describe, expect, it } from 'vitest';
import { Agent } from './agent';
import type { ToolCallBlock, ToolResultBlock } from './blocks';
import { ModelError } from './errors/model-error';
import { type AgentEvent, externalExecutionResult, userConfirmResult } from './events';
import type { Msg } from './msg';
import { definePlugin, type PluginToolContext } from './plugin';
import { toProviderTurns } from './provider-turns';
import { replayEvents } from './replay-events';
import { ScriptedModel, textChunks, toolCallChunk } from './testing/scripted-model';
import { defineTool } from './define-tool';

const quiet = { warn() {}, error() {} };

const objectSchema = { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] };

const echo = (log: string[], extra: { needsConfirmation?: boolean } = {}) =>
  defineTool<{ cmd: string }>({
    name: 'echo',
    description: 'echo',
    inputSchema: objectSchema,
    execute: ({ cmd }) => {
      log.push(cmd);
      return `ran ${cmd}`;
    },
    ...extra,
  });

const replyMsg = (agent: Agent): Msg => agent.state.context.find((m) => m.id === agent.state.reply?.id)!;
const callsOf = (msg: Msg) => msg.content.filter((b): b is ToolCallBlock => b.type === 'tool_call');
const getTextOf = (r: ToolResultBlock) => r.output.map((b) => (b.type === 'text' ? b.text : '')).join('');
const resultsOf = (msg: Msg) => msg.content.filter((b): b is ToolResultBlock => b.type === 'tool_result');

describe('breaking out of replyStream', () => {
  it('aborts the running tool when the consumer stops the stream', async () => {
    let toolSignal: AbortSignal | undefined;
    let release!: () => void;
    const slow = defineTool({
      name: 'slow',
      description: 'streams, then waits',
      inputSchema: { type: 'object' },
      async *execute(_input, ctx) {
        toolSignal = ctx.signal;
        yield 'started';
        await new Promise<void>((resolve) => {
          release = resolve;
          ctx.signal.addEventListener('abort', () => resolve(), { once: true });
        });
        yield 'finished';
      },
    });
    const model = new ScriptedModel([[toolCallChunk('slow', {}, 'c1')], textChunks('done')]);
    const agent = new Agent({ name: 'a', model, tools: [slow] });
    for await (const e of agent.replyStream('go')) {
      if ((e as AgentEvent).type === 'TOOL_RESULT_TEXT_DELTA') break;
    }
    const aborted = toolSignal?.aborted;
    release?.();
    // "Breaking out of the loop stops the reply": the running tool must see the reply's signal.
    expect(aborted).toBe(true);
  });

  it('does not send a tool call without a result to the model after the stream was stopped', async () => {
    const log: string[] = [];
    const model = new ScriptedModel([[toolCallChunk('echo', { cmd: 'x' }, 'c1')], textChunks('ok')]);
    const agent = new Agent({ name: 'a', model, tools: [echo(log)] });
    for await (const e of agent.replyStream('go')) {
      if ((e as AgentEvent).type === 'TOOL_CALL_END') break;
    }
    await agent.reply('next');
    const sent = model.requests.at(-1)!.messages;
    const callIds = sent.flatMap((m) => callsOf(m).map((c) => c.id));
    const resultIds = new Set(sent.flatMap((m) => resultsOf(m).map((r) => r.id)));
    // Every tool call sent to a provider needs a result, or the provider rejects the request.
    expect(callIds.filter((id) => !resultIds.has(id))).toEqual([]);
  });
});

describe('beforeTool contract', () => {
  it('lets a beforeTool hook decide about a call to an unknown tool (BeforeToolEvent.tool is documented as undefined then)', async () => {
    const seen: Array<string | undefined> = [];
    const router = definePlugin({
      name: 'router',
      hooks: {
        beforeTool: ({ tool, toolCall }) => {
          seen.push(tool?.name ?? `unknown:${toolCall.name}`);
          if (!tool) return { decision: 'external' };
        },
      },
    });
    const model = new ScriptedModel([[toolCallChunk('lazy_mcp_tool', {}, 'c1')], textChunks('ok')]);
    const agent = new Agent({ name: 'a', model, plugins: [router] });
    await agent.reply('go');
    expect(seen).toEqual(['unknown:lazy_mcp_tool']);
  });

  it("stores a beforeTool input replacement in the call ('the call's stored input is updated')", async () => {
    const log: string[] = [];
    const rewrite = definePlugin({
      name: 'rewrite',
      hooks: { beforeTool: () => ({ input: { cmd: 'safe' } }) },
    });
    const model = new ScriptedModel([[toolCallChunk('echo', { cmd: 'rm -rf /' }, 'c1')], textChunks('ok')]);
    const agent = new Agent({ name: 'a', model, tools: [echo(log)], plugins: [rewrite] });
    const msg = await agent.reply('go');
    expect(log).toEqual(['safe']);
    // The persisted call (what the model and the user see) must show the input the tool really ran with.
    expect(JSON.parse(callsOf(msg)[0]!.input)).toEqual({ cmd: 'safe' });
  });

  it('keeps a beforeTool input replacement across an ask/approve pause', async () => {
    const log: string[] = [];
    const rewrite = definePlugin({
      name: 'rewrite',
      hooks: { beforeTool: () => ({ input: { cmd: 'safe' } }) },
    });
    const model = new ScriptedModel([[toolCallChunk('echo', { cmd: 'rm -rf /' }, 'c1')], textChunks('ok')]);
    const tools = [echo(log, { needsConfirmation: true })];
    const agent = new Agent({ name: 'a', model, tools, plugins: [rewrite] });
    const paused = await agent.reply('go');
    const call = callsOf(paused)[0]!;
    // The user approves the call as shown to them, unedited.
    await agent.reply(userConfirmResult([{ confirmed: true, toolCall: call }]));
    expect(log).toEqual(['safe']);
  });
});

describe('provider turns', () => {
  it('keeps the results of one model turn together when afterTool adds a hint', async () => {
    const log: string[] = [];
    const noter = definePlugin({
      name: 'noter',
      hooks: {
        afterTool: ({ ctx, toolCall }) => {
          if (toolCall.id === 'c1') ctx.addHint('note: output of c1 was truncated');
        },
      },
    });
    const model = new ScriptedModel([
      [toolCallChunk('echo', { cmd: 'a' }, 'c1'), toolCallChunk('echo', { cmd: 'b' }, 'c2')],
      textChunks('ok'),
    ]);
    const agent = new Agent({ name: 'a', model, tools: [echo(log)], plugins: [noter] });
    await agent.reply('go');
    const turns = toProviderTurns(model.requests[1]!.messages);
    const i = turns.findIndex((t) => t.role === 'assistant');
    // Providers need every result of an assistant turn's calls right after it, in one tool turn.
    expect(turns[i + 1]).toMatchObject({ role: 'tool' });
    const next = turns[i + 1];
    expect(next?.role === 'tool' ? next.results.map((r) => r.id) : []).toEqual(['c1', 'c2']);
  });
});

describe('resume input validation', () => {
  it('refuses a confirm result that names the same call twice (one call, one result)', async () => {
    const log: string[] = [];
    const model = new ScriptedModel([[toolCallChunk('echo', { cmd: 'x' }, 'c1')], textChunks('ok')]);
    const agent = new Agent({ name: 'a', model, tools: [echo(log, { needsConfirmation: true })] });
    const paused = await agent.reply('go');
    const call = callsOf(paused)[0]!;
    const run = agent.reply(
      userConfirmResult([
        { confirmed: false, toolCall: call },
        { confirmed: false, toolCall: call },
      ]),
    );
    await expect(run).rejects.toThrow(/more than once/);
    // Refused as a whole: nothing changed, the call still waits.
    expect(resultsOf(replyMsg(agent)).filter((r) => r.id === 'c1')).toHaveLength(0);
    expect(callsOf(replyMsg(agent))[0]!.state).toBe('asking');
  });

  it('refuses external results that name the same call twice', async () => {
    const remote = defineTool({
      name: 'remote',
      description: 'remote',
      inputSchema: { type: 'object' },
      external: true,
    });
    const model = new ScriptedModel([[toolCallChunk('remote', {}, 'c1')], textChunks('ok')]);
    const agent = new Agent({ name: 'a', model, tools: [remote] });
    await agent.reply('go');
    await agent
      .reply(
        externalExecutionResult([
          { id: 'c1', output: 'first', state: 'success' },
          { id: 'c1', output: 'second', state: 'success' },
        ]),
      )
      .catch(() => {});
    const result = resultsOf(replyMsg(agent)).find((r) => r.id === 'c1')!;
    expect(result.output.map((b) => (b.type === 'text' ? b.text : '')).join('')).not.toBe('firstsecond');
  });

  it('does not silently drop an approval whose replyId does not match (and then keep its rules)', async () => {
    const log: string[] = [];
    const model = new ScriptedModel([[toolCallChunk('echo', { cmd: 'x' }, 'c1')], textChunks('ok')]);
    const agent = new Agent({ name: 'a', model, tools: [echo(log, { needsConfirmation: true })] });
    const paused = await agent.reply('go');
    const call = callsOf(paused)[0]!;
    const event = {
      ...userConfirmResult([
        {
          confirmed: true,
          toolCall: call,
          rules: [{ toolName: 'echo', ruleContent: null, behavior: 'allow' }],
        },
      ]),
      replyId: 'some-older-reply',
    };
    let threw = false;
    const msg = await agent.reply(event).catch(() => {
      threw = true;
      return null;
    });
    // Either refuse the event with a typed error, or apply it (the reference ignores replyId);
    // never re-pause with the approval lost while its allow rule was persisted.
    if (!threw) expect(msg?.finishedReason).toBe('completed');
    else expect(agent.state.permissions.allow).toEqual([]);
  });

  it('refuses a malformed external result with a typed error instead of ending the paused reply', async () => {
    const remote = defineTool({
      name: 'remote',
      description: 'remote',
      inputSchema: { type: 'object' },
      external: true,
    });
    const model = new ScriptedModel([[toolCallChunk('remote', {}, 'c1')], textChunks('ok')]);
    const agent = new Agent({ name: 'a', model, tools: [remote] });
    await agent.reply('go');
    // e.g. JSON from a client that forgot `output`
    const bad = JSON.parse(
      '{"type":"EXTERNAL_EXECUTION_RESULT","executionResults":[{"id":"c1","state":"success"}]}',
    );
    await expect(agent.reply(bad)).rejects.toThrow();
    // The reply is still paused and can take a good answer.
    expect(replyMsg(agent).finishedReason).toBeNull();
  });
});

describe('replay equals the persisted message', () => {
  it('replays an afterTool hook that edits the result it was given in place', async () => {
    const log: string[] = [];
    const truncate = definePlugin({
      name: 'truncate',
      hooks: {
        afterTool: ({ result }) => {
          const first = result.output[0];
          if (first?.type === 'text') first.text = first.text.slice(0, 3);
          return result;
        },
      },
    });
    const model = new ScriptedModel([[toolCallChunk('echo', { cmd: 'abcdef' }, 'c1')], textChunks('ok')]);
    const agent = new Agent({ name: 'a', model, tools: [echo(log)], plugins: [truncate] });
    const events: AgentEvent[] = [];
    for await (const e of agent.replyStream('go')) events.push(e as AgentEvent);
    expect(replayEvents(events)).toEqual(replyMsg(agent));
  });
});

describe('abort classification', () => {
  it("treats a tool's own AbortError (its internal timeout) as a tool error, not a user interrupt", async () => {
    const fetchy = defineTool({
      name: 'fetchy',
      description: 'fetches with its own timeout',
      inputSchema: { type: 'object' },
      execute: async () => {
        const own = new AbortController();
        own.abort(); // e.g. its own 5 s timeout fired
        throw new DOMException('This operation was aborted', 'AbortError');
      },
    });
    const model = new ScriptedModel([[toolCallChunk('fetchy', {}, 'c1')], textChunks('the site is down')]);
    const agent = new Agent({ name: 'a', model, tools: [fetchy] });
    const msg = await agent.reply('go'); // no signal: the user never interrupted
    expect(resultsOf(msg)[0]?.state).toBe('error');
    expect(msg.finishedReason).toBe('completed');
  });
});

describe('error info', () => {
  it('does not copy a raw unclassified provider error text into the persisted ErrorInfo', async () => {
    const model = new ScriptedModel([{ error: new Error('request failed for api_key=sk-live-SECRET') }]);
    const agent = new Agent({ name: 'a', model, modelRetry: { maxRetries: 0 } });
    const msg = await agent.reply('go');
    expect(msg.finishedReason).toBe('error');
    // Reference §3.5 and classifyError's own TSDoc: generic message per type, provider texts not copied.
    expect(msg.error?.message).not.toContain('SECRET');
  });

  it("redacts secrets from (and bounds) the texts it does copy: a hook's failure, a model error of a third-party adapter", async () => {
    const key = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789';
    const leaky = definePlugin({
      name: 'leaky',
      hooks: {
        beforeInference: () => {
          throw new Error(
            `GET https://api.example.com/v1?api_key=hunter2hunter2 failed with ${key} ${'x'.repeat(100_000)}`,
          );
        },
      },
    });
    const hookMsg = await new Agent({
      name: 'a',
      model: new ScriptedModel([]),
      plugins: [leaky],
      logger: quiet,
    }).reply('go');
    expect(hookMsg.error?.type).toBe('internal');
    expect(hookMsg.error?.message).toMatch(/^Plugin 'leaky' failed in hook 'beforeInference': GET /);
    expect(hookMsg.error?.message).not.toContain(key);
    expect(hookMsg.error?.message).not.toContain('hunter2');
    expect(hookMsg.error!.message.length).toBeLessThan(2100);

    const model = new ScriptedModel([
      { error: new ModelError('invalid_request', `Bad request with key ${key}`) },
    ]);
    const modelMsg = await new Agent({ name: 'a', model, logger: quiet }).reply('go');
    expect(modelMsg.error).toEqual({ type: 'invalid_request', message: 'Bad request with key [redacted]' });
  });
});

describe('replay with concurrent tools', () => {
  it('replays a hint a beforeTool hook adds while a sibling call streams its result', async () => {
    const mk = (name: string) =>
      defineTool({
        name,
        description: name,
        inputSchema: { type: 'object' },
        concurrencySafe: true,
        execute: () => `${name} done`,
      });
    const slowHinter = definePlugin({
      name: 'hinter',
      hooks: {
        beforeTool: async ({ ctx, toolCall }) => {
          if (toolCall.id !== 'c1') return;
          ctx.addHint('checking c1 first');
          await new Promise((r) => setTimeout(r, 30));
        },
      },
    });
    const model = new ScriptedModel([
      [toolCallChunk('t1', {}, 'c1'), toolCallChunk('t2', {}, 'c2')],
      textChunks('ok'),
    ]);
    const agent = new Agent({ name: 'a', model, tools: [mk('t1'), mk('t2')], plugins: [slowHinter] });
    const events: AgentEvent[] = [];
    for await (const e of agent.replyStream('go')) events.push(e as AgentEvent);
    expect(replayEvents(events)).toEqual(replyMsg(agent));
  });
});

describe('events raised by plugin tools', () => {
  it('emits the hint and custom event a plugin tool raises through its plugin context', async () => {
    const noter = definePlugin({
      name: 'noter',
      tools: [
        defineTool({
          name: 'note',
          description: 'notes',
          inputSchema: { type: 'object' },
          execute: (_input, ctx: PluginToolContext) => {
            ctx.plugin.addHint('remember the note');
            ctx.plugin.emit('progress', { pct: 100 });
            return 'noted';
          },
        }),
      ],
    });
    const model = new ScriptedModel([[toolCallChunk('note', {}, 'c1')], textChunks('ok')]);
    const agent = new Agent({ name: 'a', model, plugins: [noter] });
    const events: AgentEvent[] = [];
    for await (const e of agent.replyStream('go')) events.push(e as AgentEvent);
    expect(events.map((e) => e.type)).toContain('HINT_BLOCK');
    expect(events.map((e) => e.type)).toContain('CUSTOM');
    expect(replayEvents(events)).toEqual(replyMsg(agent));
  });
});

describe('plugin contexts shared across replies', () => {
  it('keeps a plugin tool left running by an interrupt on its own reply, not the next one', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let lateSawAborted: boolean | undefined;
    const slow = defineTool<Record<string, never>, PluginToolContext>({
      name: 'slow',
      description: 'ignores the signal',
      inputSchema: { type: 'object', properties: {} },
      async execute(_input, t) {
        await gate; // the interrupted reply ends without waiting for it
        lateSawAborted = t.plugin.signal.aborted;
        if (!t.plugin.signal.aborted) t.plugin.addHint('late result of reply 1');
        return 'done';
      },
    });
    const model = new ScriptedModel([
      [toolCallChunk('slow', {}, 's1')],
      { chunks: textChunks('second answer'), delayMs: 20 },
    ]);
    const agent = new Agent({ name: 'a', model, plugins: [definePlugin({ name: 'p', tools: [slow] })] });
    const abort = new AbortController();
    const first = agent.reply('one', { signal: abort.signal });
    await new Promise((r) => setTimeout(r, 10));
    abort.abort();
    expect((await first).finishedReason).toBe('interrupted');

    const second = agent.reply('two');
    await new Promise((r) => setTimeout(r, 5));
    release(); // reply 1's tool wakes up while reply 2 runs
    const msg2 = await second;
    expect(lateSawAborted).toBe(true);
    expect(msg2.content.some((b) => b.type === 'hint')).toBe(false);
  });

  it('keeps tool-call ids unique when a resumed reply compresses its calls from before the pause away', async () => {
    const objectInput = { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] };
    const bash = defineTool<{ cmd: string }>({
      name: 'bash',
      description: 'run',
      needsConfirmation: true,
      inputSchema: objectInput,
      execute: ({ cmd }) => `ran ${cmd}`,
    });
    const ok = defineTool<{ cmd: string }>({
      name: 'ok',
      description: 'run',
      inputSchema: objectInput,
      execute: ({ cmd }) => `ok ${cmd}`,
    });
    let compress = false;
    const compressor = definePlugin({
      name: 'compressor',
      hooks: {
        beforeInference({ ctx }) {
          if (!compress) return;
          compress = false;
          ctx.replaceContext({ summary: 'earlier work', context: [] }); // the reply's message too
        },
      },
    });
    const model = new ScriptedModel([
      [toolCallChunk('bash', { cmd: 'ls' }, 'c1')],
      [toolCallChunk('ok', { cmd: 'pwd' }, 'c1')], // the provider reuses the id after the resume
      textChunks('done'),
    ]);
    const agent = new Agent({ name: 'a', model, tools: [bash, ok], plugins: [compressor] });
    await agent.reply('go'); // pauses on c1
    compress = true;
    const msg = await agent.reply(
      userConfirmResult([{ confirmed: true, toolCall: { id: 'c1', name: 'bash', input: '{"cmd":"ls"}' } }]),
    );
    const ids = msg.content.filter((b) => b.type === 'tool_call').map((b) => b.id);
    expect(ids).toEqual(['c1', 'c1_2']);
    expect(resultsOf(msg).map((r) => `${r.id}: ${getTextOf(r)}`)).toEqual(['c1: ran ls', 'c1_2: ok pwd']);
  });
});
