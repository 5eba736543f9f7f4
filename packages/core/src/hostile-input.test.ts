// Bad input from a model, a tool, a caller or a peer gets a typed error (or a tool error result the model
// can correct), never a crash: issue 13's findings, each reproduced.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { Agent } from './agent';
import type { ToolResultBlock } from './blocks';
import { defineTool } from './define-tool';
import { InvalidInputError } from './errors/input-errors';
import { externalExecutionResult, userConfirmResult } from './events';
import { InMemorySessionStore } from './in-memory-session-store';
import type { ModelChunk } from './model';
import { createMsg, getText, type Msg, userMsg } from './msg';
import { definePlugin } from './plugin';
import { runSession } from './run-session';
import { SessionLease } from './session-lease';
import { parseAgentState } from './state';
import { ScriptedModel, textChunks, toolCallChunk } from './testing/scripted-model';

const quiet = { warn() {}, error() {} };
const resultsOf = (msg: Msg) => msg.content.filter((b): b is ToolResultBlock => b.type === 'tool_result');
const resultText = (r: ToolResultBlock) => r.output.map((b) => (b.type === 'text' ? b.text : '')).join('');
const deepJson = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;
function deepObject(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 0; i < depth; i++) value = { d: value };
  return value;
}
const cyclic = (): Record<string, unknown> => {
  const o: Record<string, unknown> = {};
  o.self = o;
  return o;
};
const callChunk = (name: string, args: string, id = 'c1'): ModelChunk => ({
  type: 'tool_call',
  id,
  name,
  delta: args,
});

describe("a model's tool arguments", () => {
  const pick = defineTool({
    name: 'pick',
    description: 'picks',
    inputSchema: { type: 'object', properties: { c: { enum: ['a', 'b'] }, k: { const: 1 } } },
    execute: () => 'picked',
  });
  const zodPick = defineTool({
    name: 'zpick',
    description: 'picks',
    inputSchema: z.object({ c: z.enum(['a', 'b']) }),
    execute: () => 'picked',
  });

  it('a 100k-deep value (enum, const, a zod schema, an unknown tool) becomes a tool error result', async () => {
    const deep = deepJson(100_000);
    const model = new ScriptedModel([
      [
        callChunk('pick', `{"c":${deep}}`, 'c1'),
        callChunk('pick', `{"k":${deep}}`, 'c2'),
        callChunk('zpick', `{"c":${deep}}`, 'c3'),
        callChunk('nope', `{"c":${deep}}`, 'c4'),
      ],
      textChunks('corrected'),
    ]);
    const seen: unknown[] = [];
    const watcher = definePlugin({
      name: 'watcher',
      hooks: {
        beforeTool: ({ toolCall, input }) => {
          if (toolCall.name === 'nope') seen.push(typeof input);
        },
      },
    });
    const agent = new Agent({ name: 'a', model, tools: [pick, zodPick], plugins: [watcher], logger: quiet });
    const msg = await agent.reply('go');
    expect(msg.finishedReason).toBe('completed');
    const results = resultsOf(msg);
    expect(results.map((r) => r.state)).toEqual(['error', 'error', 'error', 'error']);
    for (const r of results.slice(0, 3)) expect(resultText(r)).toMatch(/nests deeper than 512 levels/);
    expect(resultText(results[3]!)).toMatch(/doesn't exist/);
    // A hook sees a value it can walk: the unknown tool's too-deep arguments stay text.
    expect(seen).toEqual(['string']);
    // The model saw the errors and answered.
    expect(getText(msg)).toBe('corrected');
    expect(() => JSON.stringify(agent.state)).not.toThrow();
  });

  it('a validator that throws fails the call, not the reply', async () => {
    const throwing = defineTool({
      name: 'weird',
      description: 'weird',
      inputSchema: {
        '~standard': {
          version: 1,
          vendor: 'test',
          validate: () => {
            throw Object.create(null);
          },
          jsonSchema: { input: () => ({ type: 'object' }), output: () => ({ type: 'object' }) },
        },
      } as never,
      execute: () => 'ran',
    });
    const model = new ScriptedModel([[toolCallChunk('weird', {})], textChunks('ok')]);
    const msg = await new Agent({ name: 'a', model, tools: [throwing] }).reply('go');
    expect(msg.finishedReason).toBe('completed');
    expect(resultText(resultsOf(msg)[0]!)).toMatch(/the validator threw \(\(a thrown object/);
  });
});

describe('a tool that throws something that is not an Error', () => {
  const hostileProxy = new Proxy(
    {},
    {
      get() {
        throw new Error('trap');
      },
      getPrototypeOf() {
        throw new Error('trap');
      },
      has() {
        throw new Error('trap');
      },
    },
  );
  const badGetter = Object.defineProperty(new Error('x'), 'message', {
    get() {
      throw new Error('getter');
    },
  });
  const thrown: Array<[string, unknown, RegExp]> = [
    ['a null-prototype object', Object.create(null), /^\(a thrown object that cannot be shown as text\)$/],
    ['a string', 'boom', /^boom$/],
    ['undefined', undefined, /^undefined$/],
    ['null', null, /^null$/],
    ['a number', 42, /^42$/],
    ['a symbol', Symbol('s'), /^Symbol\(s\)$/],
    ['an error whose message getter throws', badGetter, /cannot be shown/],
    ['a proxy whose traps throw', hostileProxy, /cannot be shown/],
  ];
  for (const [label, value, text] of thrown)
    for (const mode of ['sync', 'async', 'streaming'] as const)
      it(`${label} (${mode}) becomes a tool error result`, async () => {
        const tool = defineTool({
          name: 't',
          description: 't',
          inputSchema: { type: 'object' },
          execute:
            mode === 'sync'
              ? () => {
                  throw value;
                }
              : mode === 'async'
                ? async () => {
                    throw value;
                  }
                : async function* () {
                    yield 'partial ';
                    throw value;
                  },
        });
        const model = new ScriptedModel([[toolCallChunk('t', {})], textChunks('noted')]);
        const msg = await new Agent({ name: 'a', model, tools: [tool], logger: quiet }).reply('go');
        expect(msg.finishedReason).toBe('completed');
        const [result] = resultsOf(msg);
        expect(result!.state).toBe('error');
        expect(resultText(result!).replace(/^partial /, '')).toMatch(text);
      });

  it('a hook that throws one is still attributed to its plugin and hook', async () => {
    const bad = definePlugin({
      name: 'bad',
      hooks: {
        beforeInference: () => {
          throw Object.create(null);
        },
      },
    });
    const model = new ScriptedModel([textChunks('never')]);
    const msg = await new Agent({ name: 'a', model, plugins: [bad], logger: quiet }).reply('go');
    expect(msg.error).toEqual({
      type: 'internal',
      message:
        "Plugin 'bad' failed in hook 'beforeInference': (a thrown object that cannot be shown as text)",
    });
  });

  it('a model that throws a hostile proxy ends the reply with a recorded error', async () => {
    const model = new ScriptedModel([{ error: hostileProxy as Error }]);
    const msg = await new Agent({ name: 'a', model, logger: quiet }).reply('go');
    expect(msg.finishedReason).toBe('error');
    expect(msg.error?.type).toBe('unknown');
  });
});

describe('a tool (or an MCP server behind it) that returns a result of the wrong shape', () => {
  const returned: Array<[string, unknown, RegExp]> = [
    [
      'a state the result cannot have',
      { output: 'x', state: 'running' },
      /state must be 'success' or 'error'/,
    ],
    ['metadata that is a list', { output: 'x', metadata: [1] }, /metadata must be a JSON object/],
    ['metadata holding a bigint', { output: 'x', metadata: { n: 1n } }, /metadata\.n is a bigint/],
    ['metadata nested 100k levels', { output: 'x', metadata: deepObject(100_000) }, /deeper than 512/],
    [
      'a text part whose text is a number',
      { output: [{ type: 'text', text: 5 }] },
      /output\[0\]\.text' must be a string/,
    ],
    [
      'a data part without a media type',
      { output: [{ type: 'data', source: { type: 'base64', data: 'AAAA' } }] },
      /mediaType' must be a string/,
    ],
    ['a part of an unknown type', { output: [null] }, /output\[0\]' must be a text or data block/],
    [
      // Saved, it would make the provider refuse every later request of the session.
      'a data part whose data is not base64',
      { output: [{ type: 'data', source: { type: 'base64', data: '<script>', mediaType: 'image/png' } }] },
      /output\[0\]\.source\.data' must be base64/,
    ],
  ];
  for (const [label, value, text] of returned)
    it(`${label} becomes a tool error result; the state loads again`, async () => {
      const tool = defineTool({
        name: 't',
        description: 't',
        inputSchema: { type: 'object' },
        execute: () => value,
      });
      const model = new ScriptedModel([[toolCallChunk('t', {})], textChunks('noted')]);
      const agent = new Agent({ name: 'a', model, tools: [tool], logger: quiet });
      const msg = await agent.reply('go');
      expect(msg.finishedReason).toBe('completed');
      const [result] = resultsOf(msg);
      expect(result!.state).toBe('error');
      expect(resultText(result!)).toMatch(/^Tool 't' returned a result that cannot be saved: /);
      expect(resultText(result!)).toMatch(text);
      expect(() => parseAgentState(JSON.stringify(agent.state))).not.toThrow();
    });

  it('a streamed chunk of the wrong shape ends the call with an error result', async () => {
    const tool = defineTool({
      name: 't',
      description: 't',
      inputSchema: { type: 'object' },
      async *execute() {
        yield 'partial ';
        yield { type: 'data', source: { type: 'url', url: 5, mediaType: 'image/png' } } as never;
      },
    });
    const model = new ScriptedModel([[toolCallChunk('t', {})], textChunks('noted')]);
    const agent = new Agent({ name: 'a', model, tools: [tool], logger: quiet });
    const [result] = resultsOf(await agent.reply('go'));
    expect(result!.state).toBe('error');
    expect(resultText(result!)).toMatch(
      /streamed a chunk that cannot be saved: 'chunk\.source\.url' must be a string/,
    );
    expect(() => parseAgentState(JSON.stringify(agent.state))).not.toThrow();
  });
});

describe("a caller's input", () => {
  const agent = () => new Agent({ name: 'a', model: new ScriptedModel([textChunks('hi')]), logger: quiet });

  it('messages that a state could not save or load again are InvalidInputError, and change nothing', async () => {
    const bad: Array<[string, unknown]> = [
      [
        '100k-deep metadata',
        createMsg({ role: 'user', content: 'x', metadata: deepObject(100_000) as never }),
      ],
      ['cyclic metadata', createMsg({ role: 'user', content: 'x', metadata: cyclic() as never })],
      ['BigInt metadata', createMsg({ role: 'user', content: 'x', metadata: { n: 1n } as never })],
      ['a BigInt id', { ...userMsg('x'), id: 1n }],
      [
        'a text that is not a string',
        { ...userMsg('x'), content: [{ type: 'text', id: 't', text: cyclic() }] },
      ],
      ['no id', { role: 'user', name: 'user', content: [] }],
      ['a Date as createdAt', { ...userMsg('x'), createdAt: new Date() }],
    ];
    for (const [label, msg] of bad) {
      const a = agent();
      const before = JSON.stringify(a.state);
      await expect(a.reply(msg as Msg), label).rejects.toSatisfy((e) => InvalidInputError.isInstance(e));
      await expect(a.observe(msg as Msg), label).rejects.toSatisfy((e) => InvalidInputError.isInstance(e));
      expect(JSON.stringify(a.state), label).toBe(before);
    }
    await expect(agent().reply([userMsg('fine'), { ...userMsg('x'), id: 7 } as never])).rejects.toThrow(
      "Invalid input message: 'input[1].id' must be a string.",
    );
    await expect(agent().reply([userMsg('fine'), { ...userMsg('x'), id: 1n } as never])).rejects.toThrow(
      'Invalid input message: input[1].id is a bigint, not JSON data.',
    );
  });

  it('reply options of the wrong kind are InvalidInputError', async () => {
    const bad: unknown[] = [
      null,
      5n,
      'fast',
      { signal: 5n },
      { signal: cyclic() },
      { suspendSignal: {} },
      { checkpoint: 'save' },
    ];
    for (const options of bad) {
      await expect(agent().reply('x', options as never), String(options)).rejects.toSatisfy((e) =>
        InvalidInputError.isInstance(e),
      );
      const stream = agent().replyStream('x', options as never);
      await expect(stream.next()).rejects.toSatisfy((e) => InvalidInputError.isInstance(e));
    }
  });

  it('resume events that would put non-JSON or malformed values into the state are InvalidInputError', async () => {
    const confirm = defineTool({
      name: 'rm',
      description: 'rm',
      inputSchema: { type: 'object' },
      needsConfirmation: true,
      execute: () => 'removed',
    });
    const ext = defineTool({
      name: 'ext',
      description: 'ext',
      inputSchema: { type: 'object' },
      external: true,
    });
    const paused = async (tool: typeof confirm) => {
      const a = new Agent({
        name: 'a',
        model: new ScriptedModel([[toolCallChunk(tool.name, {}, 'c1')], textChunks('done')]),
        tools: [tool],
      });
      await a.reply('go');
      return a;
    };
    const call = { id: 'c1', name: 'rm', input: '{}' };
    const badConfirms = [
      userConfirmResult([{ confirmed: true, toolCall: { ...call, extra: 1n } as never }]),
      userConfirmResult([{ confirmed: true, toolCall: call, rules: [{ toolName: 'rm' }] as never }]),
      userConfirmResult([{ confirmed: true, toolCall: call, rules: 'all' as never }]),
      userConfirmResult([{ confirmed: true, toolCall: { ...call, input: cyclic() } as never }]),
    ];
    for (const event of badConfirms) {
      const a = await paused(confirm);
      const before = JSON.stringify(a.state);
      await expect(a.reply(event)).rejects.toSatisfy((e) => InvalidInputError.isInstance(e));
      expect(JSON.stringify(a.state)).toBe(before);
    }
    const badResults = [
      externalExecutionResult([{ id: 'c1', output: [{ type: 'text', text: 5 }] as never, state: 'success' }]),
      externalExecutionResult([{ id: 'c1', output: [{ type: 'data' }] as never, state: 'success' }]),
      externalExecutionResult([{ id: 'c1', output: 'ok', state: 'success', metadata: [] as never }]),
      externalExecutionResult([{ id: 'c1', output: 'ok', state: 'success', metadata: { n: 1n } as never }]),
    ];
    for (const event of badResults) {
      const a = await paused(ext);
      const before = JSON.stringify(a.state);
      await expect(a.reply(event)).rejects.toSatisfy((e) => InvalidInputError.isInstance(e));
      expect(JSON.stringify(a.state)).toBe(before);
    }
  });

  it('BigInt or cyclic ids, cursors and options of the session layer are InvalidInputError', async () => {
    const store = new InMemorySessionStore();
    const key = { userId: 'u', agentId: 'a', sessionId: 's' };
    const attempts: Array<() => Promise<unknown>> = [
      () => store.getSession(1n as never, 'a', 's'),
      () => store.getSession(cyclic() as never, 'a', 's'),
      () => store.listSessions('u', 'a', { cursor: 5n as never }),
      () => store.listSessions('u', 'a', { cursor: cyclic() as never }),
      () => store.listSessions('u', 'a', { limit: 5n as never }),
      () => store.upsertSession('u', 'a', 's', { metadata: cyclic() as never }),
      () => store.upsertSession('u', 'a', 's', { metadata: { n: 1n } as never }),
      () => store.updateSessionState('u', 'a', 's', cyclic() as never),
      () => store.acquireLease('u', 'a', 1n as never, { ttlMs: 1000 }),
      () => store.acquireLease('u', 'a', 's', { ttlMs: 5n as never }),
      () => SessionLease.acquire(store, key, { owner: cyclic() as never }),
      () =>
        runSession({
          store,
          session: { ...key, userId: 1n as never },
          agent: (state) => new Agent({ name: 'a', model: new ScriptedModel([]), state }),
          input: 'x',
        }),
      () =>
        runSession({
          store,
          session: key,
          agent: (state) => new Agent({ name: 'a', model: new ScriptedModel([textChunks('x')]), state }),
          input: 'x',
          replyId: cyclic() as never,
        }),
    ];
    for (const attempt of attempts)
      await expect(attempt(), attempt.toString()).rejects.toSatisfy((e) => InvalidInputError.isInstance(e));
  });
});
