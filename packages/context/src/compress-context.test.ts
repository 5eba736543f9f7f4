import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Agent,
  type AgentState,
  ConfigError,
  createAgentState,
  createMsg,
  getBlocks,
  getText,
  type HintBlock,
  parseAgentState,
  type Msg,
  TokenCounter,
  textBlock,
} from '@agentkit/core';
import {
  ScriptedModel,
  type ScriptedResponse,
  textChunks,
  toolCallChunk,
  usageChunk,
} from '@agentkit/core/testing';
import { describe, expect, it } from 'vitest';
import { compressContext } from './compress-context';
import { type ContextPluginOptions, contextPlugin } from './context-plugin';
import { SUMMARY_TOOL_NAME, TRUNCATION_SUMMARY } from './defaults';
import { ContextBusyError, ContextCompressionError, ContextThresholdError } from './errors';
import { FileOffloader } from './file-offloader';
import type { Offloader } from './offloader';
import { chars } from './__fixtures__/summary-fixtures';

const FIELDS = {
  task_overview: '1',
  current_state: '2',
  important_discoveries: '3',
  next_steps: '4',
  context_to_preserve: '5',
};
const SUMMARY =
  '<system-info>Here is a summary of your previous work\n# Task Overview\n1\n\n# Current State\n2\n\n# Important Discoveries\n3\n\n# Next Steps\n4\n\n# Context to Preserve\n5</system-info>';
const summaryStep = (fields: object = FIELDS, usage?: Parameters<typeof usageChunk>[0]): ScriptedResponse => [
  toolCallChunk(SUMMARY_TOOL_NAME, fields),
  ...(usage ? [usageChunk(usage)] : []),
];
const user = (id: string, tokens: number, ch = String(id)) =>
  createMsg({ role: 'user', name: 'User', id, content: chars(ch, tokens) });
const asst = (id: string, tokens: number, ch = String(id)) =>
  createMsg({ role: 'assistant', name: 'Friday', id, content: chars(ch, tokens) });

/** The reference's compression fixture: 20-token system prompt, context 30 + 10 + 10 tokens, size 100, trigger 0.7, reserve 0.4. */
function setup(options: {
  script?: ScriptedResponse[];
  context?: Msg[];
  summary?: AgentState['summary'];
  plugin?: ContextPluginOptions;
  countTokens?: ConstructorParameters<typeof ScriptedModel>[1] extends infer O
    ? O extends { countTokens?: infer C }
      ? C
      : never
    : never;
  reply?: AgentState['reply'];
  contextSize?: number;
}) {
  const model = new ScriptedModel(options.script ?? [summaryStep()], {
    contextSize: options.contextSize ?? 100,
    countTokens: options.countTokens,
  });
  const context =
    options.plugin === undefined
      ? contextPlugin({ triggerRatio: 0.7, reserveRatio: 0.4 })
      : contextPlugin(options.plugin);
  const state: AgentState = {
    ...createAgentState({ sessionId: '123' }),
    summary: options.summary ?? '',
    context: options.context ?? [user('1', 30), asst('2', 10), user('3', 10)],
    reply: options.reply ?? null,
  };
  const agent = new Agent({ name: 'Friday', systemPrompt: chars('0', 20), model, plugins: [context], state });
  return { agent, model, context };
}

describe('manual compression (reference compress_context_test)', () => {
  it('replaces the old messages by the rendered summary and keeps the newest word for word', async () => {
    const { agent, model, context } = setup({});
    const outcome = await context.compress(agent);
    expect(outcome).toMatchObject({
      compressed: true,
      fallback: false,
      compressedMessages: 1,
      keptMessages: 2,
    });
    expect(agent.state.summary).toBe(SUMMARY);
    expect(
      agent.state.context.map((m) => [m.id, m.content.map((b) => (b.type === 'text' ? b.text : b.type))]),
    ).toEqual([
      ['2', [chars('2', 10)]],
      ['3', [chars('3', 10)]],
    ]);
    // One structured call: the summary schema as the only tool, forced, and the compression prompt last.
    expect(model.requests).toHaveLength(1);
    const request = model.requests[0]!;
    expect(request.toolChoice).toEqual({ name: SUMMARY_TOOL_NAME });
    expect(request.tools.map((t) => t.name)).toEqual([SUMMARY_TOOL_NAME]);
    expect(Object.keys(request.tools[0]!.inputSchema.properties as object)).toEqual(Object.keys(FIELDS));
    expect(request.systemPrompt).toBe(chars('0', 20));
    expect(request.messages.map((m) => m.id).slice(0, 1)).toEqual(['1']);
    expect(request.messages.at(-1)).toMatchObject({ role: 'user' });
    expect(getBlocks(request.messages.at(-1)!, 'text')[0]!.text).toContain('continuation summary');
  });

  it('feeds the previous summary to the model, so the new one replaces it', async () => {
    const { agent, model, context } = setup({ summary: 'old summary' });
    await context.compress(agent);
    expect(getBlocks(model.requests[0]!.messages[0]!, 'text')[0]!.text).toBe('old summary');
    expect(agent.state.summary).toBe(SUMMARY);
  });

  it('ends the summary request with the compression prompt, the current time filled in', async () => {
    const { agent, model, context } = setup({});
    const before = Date.now();
    await context.compress(agent);
    const request = model.requests[0]!;
    expect(request.toolChoice).toEqual({ name: SUMMARY_TOOL_NAME });
    expect(request.tools.map((t) => t.name)).toEqual([SUMMARY_TOOL_NAME]);
    const last = request.messages[request.messages.length - 1]!;
    expect(last.role).toBe('user');
    const prompt = getText(last) ?? '';
    expect(prompt).toMatch(/^<system-hint>[\s\S]*continuation summary[\s\S]*<\/system-hint>$/);
    // The reference prompt: the current time, and every reference made self-contained (time, names, in-flight work).
    expect(prompt).not.toContain('{current_time}');
    const time = /The current time is (\S+?)\.\n/.exec(prompt)?.[1];
    expect(time && Date.parse(time)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    for (const topic of ['- Time:', '- Names & pointers:', '- In-flight work:'])
      expect(prompt).toContain(topic);
  });

  it('sends instructions as an assistant hint for this call only', async () => {
    const { agent, model, context } = setup({});
    const instructions: HintBlock = {
      type: 'hint',
      id: 'ins',
      hint: 'Keep user requirements and file paths.',
      source: 'user',
      createdAt: '',
    };
    await context.compress(agent, { instructions });
    const sent = model.requests[0]!.messages.filter((m) => m.role === 'assistant').flatMap((m) =>
      getBlocks(m, 'hint'),
    );
    expect(sent).toEqual([instructions]);
    expect(agent.state.context.some((m) => getBlocks(m, 'hint').length > 0)).toBe(false);
    // A string becomes a hint too.
    const second = setup({});
    await second.context.compress(second.agent, { instructions: 'Keep the paths.' });
    const hints = second.model.requests[0]!.messages.flatMap((m) => getBlocks(m, 'hint'));
    expect(hints.map((h) => h.hint)).toEqual(['Keep the paths.']);
  });

  it('retries an overflowing request once with the oldest messages dropped, keeping the instructions', async () => {
    const plain = new TokenCounter();
    let promptCounts = 0;
    const { agent, model, context } = setup({
      script: [{ error: new Error('simulated compression overflow') }, summaryStep()],
      // The first count of the summary request overflows the model; later counts are normal.
      countTokens: (input) => {
        const isPrompt =
          input.messages.length === 1 &&
          getBlocks(input.messages[0]!, 'text')[0]?.text.includes('<system-hint>');
        if (isPrompt && promptCounts++ === 0) return 1000;
        return plain.count(input);
      },
    });
    await context.compress(agent, { instructions: "Keep the user's original success criteria." });
    expect(model.requests).toHaveLength(2);
    const hints = model.requests[1]!.messages.flatMap((m) => getBlocks(m, 'hint'));
    expect(hints.map((h) => h.hint)).toEqual(["Keep the user's original success criteria."]);
    expect(agent.state.summary).toBe(SUMMARY);
  });

  it('falls back to a truncation summary when the summary call fails', async () => {
    const { agent, context } = setup({ script: [{ error: new Error('simulated compression overflow') }] });
    const before = structuredClone(agent.state);
    const outcome = await context.compress(agent);
    expect(outcome.fallback).toBe(true);
    expect(agent.state).toEqual({ ...before, summary: TRUNCATION_SUMMARY, context: before.context.slice(1) });
  });

  it('keeps the previous summary on fallback, and treats a malformed summary as a failure', async () => {
    const { agent, context } = setup({
      script: [[toolCallChunk(SUMMARY_TOOL_NAME, { task_overview: 'only one field' })]],
      summary: 'previous',
    });
    await context.compress(agent);
    expect(agent.state.summary).toBe('previous');
  });

  it('treats a summary that alone reaches the threshold as a failure (it could never be compressed below it)', async () => {
    const { agent, context } = setup({
      script: [[toolCallChunk(SUMMARY_TOOL_NAME, { ...FIELDS, task_overview: chars('z', 500) })]],
    });
    const outcome = await context.compress(agent);
    expect(outcome.fallback).toBe(true);
    expect(agent.state.summary).toBe(TRUNCATION_SUMMARY);
  });

  it('records usage counters that are not counts (NaN, negative, strings) as 0: the state loads again', async () => {
    const { agent, context } = setup({
      script: [
        [
          toolCallChunk(SUMMARY_TOOL_NAME, FIELDS),
          {
            type: 'usage',
            usage: { inputTokens: Number.NaN, outputTokens: -3, cacheInputTokens: '7' } as never,
          },
        ],
      ],
    });
    await context.compress(agent);
    expect(agent.state.summary).toBe(SUMMARY);
    expect(agent.state.context.at(-1)!.usage).toEqual({
      inputTokens: 0,
      outputTokens: 0,
      cacheInputTokens: 0,
      cacheCreationInputTokens: 0,
      reasoningTokens: 0,
    });
    expect(() => parseAgentState(JSON.stringify(agent.state))).not.toThrow();
  });

  it('raises and leaves the state untouched when the fallback is off', async () => {
    const failure = { error: new Error('simulated compression overflow') };
    // (The summary request, with its schema, is larger than this tiny model: the overflow retry fails too.)
    const { agent, context } = setup({ script: [failure, failure] });
    const before = structuredClone(agent.state);
    const error = await context
      .compress(agent, { config: { compressionFallbackToTruncation: false } })
      .catch((e) => e);
    expect(error).toBeInstanceOf(ContextCompressionError);
    expect(error.message).toContain('simulated compression overflow');
    expect(agent.state).toEqual(before);
  });

  it('does not duplicate the offload reminder on a repeated fallback', async () => {
    const reminder =
      "<system-reminder>The compressed context is offloaded to 'sessions/123/context.jsonl', you can refer to it when needed.</system-reminder>";
    const offloaded: Msg[][] = [];
    const offloader: Offloader = {
      offloadDataBlock: async (b) => b,
      offloadContext: async (_session, msgs) => {
        offloaded.push([...msgs]);
        return 'sessions/123/context.jsonl';
      },
      offloadToolResult: async () => '',
    };
    const { agent, context } = setup({
      script: [{ error: new Error('simulated compression overflow') }],
      summary: reminder,
      plugin: { triggerRatio: 0.7, reserveRatio: 0.4, offloader },
    });
    const before = structuredClone(agent.state);
    await context.compress(agent);
    expect(agent.state).toEqual({ ...before, context: [] });
    expect(offloaded[0]!.map((m) => m.id)).toEqual(['1', '2', '3']);
  });

  it('appends the offload reminder to a new summary', async () => {
    const offloader: Offloader = {
      offloadDataBlock: async (b) => b,
      offloadContext: async () => '/data/ctx.jsonl',
      offloadToolResult: async () => '',
    };
    const { agent, context } = setup({ plugin: { triggerRatio: 0.7, reserveRatio: 0.4, offloader } });
    const outcome = await context.compress(agent);
    expect(outcome.offloadPath).toBe('/data/ctx.jsonl');
    expect(agent.state.summary).toBe(
      `${SUMMARY}\n<system-reminder>The compressed context is offloaded to '/data/ctx.jsonl', you can refer to it when needed.</system-reminder>`,
    );
  });

  it('records the summary usage on the last kept message, adding to what it had', async () => {
    const usage = { inputTokens: 123, outputTokens: 45, cacheInputTokens: 6, cacheCreationInputTokens: 7 };
    const { agent, context } = setup({ script: [summaryStep(FIELDS, usage)] });
    await context.compress(agent);
    expect(agent.state.context.map((m) => m.usage)).toEqual([null, { ...usage, reasoningTokens: 0 }]);

    const last = user('3', 10);
    last.usage = {
      inputTokens: 10,
      outputTokens: 20,
      cacheInputTokens: 3,
      cacheCreationInputTokens: 4,
      reasoningTokens: 0,
    };
    const again = setup({
      script: [summaryStep(FIELDS, usage)],
      context: [user('1', 30), asst('2', 10), last],
    });
    await again.context.compress(again.agent);
    expect(again.agent.state.context[1]!.usage).toEqual({
      inputTokens: 133,
      outputTokens: 65,
      cacheInputTokens: 9,
      cacheCreationInputTokens: 11,
      reasoningTokens: 0,
    });
    // The message in the caller's hands is not mutated.
    expect(last.usage.inputTokens).toBe(10);
  });

  it('carries the usage on an empty assistant message with the reply id when nothing is kept', async () => {
    const { agent, context } = setup({
      script: [summaryStep(FIELDS, { inputTokens: 123, outputTokens: 45 })],
      context: [user('1', 55)],
      reply: { id: 'reply-1', iteration: 1, data: {}, finish: null },
    });
    await context.compress(agent);
    expect(agent.state.context).toEqual([
      expect.objectContaining({
        id: 'reply-1',
        role: 'assistant',
        name: 'Friday',
        content: [],
        usage: expect.objectContaining({ inputTokens: 123, outputTokens: 45 }),
      }),
    ]);
    // No reply is running, so the carrier is a finished message (an open one would look like a live reply
    // and keep every later message from being counted once).
    expect(agent.state.context[0]!.finishedAt).toEqual(expect.any(String));
  });

  it('compresses everything when the reserve would keep it all (budget 0)', async () => {
    // Threshold 0.3 × 100 = 30 is reached, but the reserve (0.2 × 100 + 20-token prompt) keeps nothing back…
    const { agent, context, model } = setup({
      context: [user('1', 5), asst('2', 5)],
      plugin: { triggerRatio: 0.3, reserveRatio: 0.2, contextBufferRatio: 0.1 },
    });
    await context.compress(agent);
    expect(model.requests[0]!.messages.map((m) => m.id).slice(0, 2)).toEqual(['1', '2']);
    expect(agent.state.context).toEqual([]);
  });

  it('keeps the offloaded-image notes when a compression then fails', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentkit-cc-'));
    try {
      const png =
        'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
      const img = (n: string) => ({
        type: 'data' as const,
        id: n,
        name: n,
        source: { type: 'base64' as const, data: png, mediaType: 'image/png' },
      });
      const failure = { error: new Error('simulated compression overflow') };
      const { agent, context } = setup({
        script: [failure, failure],
        context: [createMsg({ role: 'user', id: 'u', content: [img('a'), img('b'), textBlock('hi')] })],
        plugin: {
          maxImageNum: 1,
          offloader: new FileOffloader({
            directory: dir,
            userId: 'u1',
            agentId: 'a1',
            dataUrlBase: 'workspace:///',
          }),
        },
      });
      const error = await context
        .compress(agent, { config: { compressionFallbackToTruncation: false } })
        .catch((e) => e);
      expect(error).toBeInstanceOf(ContextCompressionError);
      const url = `workspace:///data/${createHash('sha256').update(png).digest('hex')}.png`;
      expect(JSON.stringify(agent.state.context)).toContain(url);
      expect(agent.state.context[0]!.content.map((b) => b.type)).toEqual(['text', 'data', 'text']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a reply that runs while the summary is written is not lost', async () => {
    // Summary calls and the reply's model call, whatever their order, with their own delays.
    const route =
      (summaryDelay: number, replyDelay: number): ScriptedResponse =>
      (request) =>
        typeof request.toolChoice === 'object'
          ? { chunks: [toolCallChunk(SUMMARY_TOOL_NAME, FIELDS)], delayMs: summaryDelay }
          : { chunks: textChunks('hello back'), delayMs: replyDelay };

    // The reply is over when the summary arrives: the compression applies, the reply's messages follow.
    const done = setup({
      script: [route(80, 0), route(80, 0)],
      plugin: { triggerRatio: 0.9, reserveRatio: 0.4 },
    });
    const compressing = done.context.compress(done.agent, { config: { triggerRatio: 0.5 } });
    await new Promise((resolve) => setTimeout(resolve, 10)); // the summary call is under way
    expect(getText(await done.agent.reply('hi'))).toBe('hello back');
    expect((await compressing).compressed).toBe(true);
    expect(done.agent.state.summary).toBe(SUMMARY);
    expect(done.agent.state.context.map((m) => m.id).slice(0, 2)).toEqual(['2', '3']);
    expect(done.agent.state.context.slice(2).map((m) => getText(m))).toEqual(['hi', 'hello back']);

    // The reply still runs when the summary arrives: the compression is dropped and nothing changes.
    const running = setup({
      script: [route(50, 150), route(50, 150)],
      plugin: { triggerRatio: 0.9, reserveRatio: 0.4 },
    });
    const before = structuredClone(running.agent.state.context);
    const refused = running.context.compress(running.agent, { config: { triggerRatio: 0.5 } });
    await new Promise((resolve) => setTimeout(resolve, 5));
    const reply = running.agent.reply('hi');
    expect(await refused.catch((e) => e)).toBeInstanceOf(ContextBusyError);
    expect(getText(await reply)).toBe('hello back');
    expect(running.agent.state.summary).toBe('');
    expect(running.agent.state.context.slice(0, before.length)).toEqual(before);
    expect(running.agent.state.context.slice(-2).map((m) => getText(m))).toEqual(['hi', 'hello back']);
  });

  it('messages observed while the summary is written are kept after the kept part', async () => {
    const { agent, context } = setup({
      script: [{ chunks: [toolCallChunk(SUMMARY_TOOL_NAME, FIELDS)], delayMs: 30 }],
    });
    const compressing = context.compress(agent);
    await new Promise((resolve) => setTimeout(resolve, 10)); // the summary call is under way
    await agent.observe(createMsg({ role: 'user', id: 'late', content: 'late news' }));
    expect((await compressing).compressed).toBe(true);
    expect(agent.state.context.map((m) => m.id)).toEqual(['2', '3', 'late']);
  });

  it('a message observed while an automatic compression writes its summary is kept', async () => {
    const { agent } = setup({
      script: [{ chunks: [toolCallChunk(SUMMARY_TOOL_NAME, FIELDS)], delayMs: 60 }, textChunks('answer')],
    });
    const reply = agent.reply('go'); // 70 tokens reach the threshold: the first model call compresses first
    await new Promise((resolve) => setTimeout(resolve, 15));
    await agent.observe(createMsg({ role: 'user', id: 'late', content: 'late news' }));
    expect(getText(await reply)).toBe('answer');
    expect(agent.state.summary).toBe(SUMMARY);
    expect(agent.state.context.map((m) => m.id)).toContain('late');
  });

  it('does nothing below the threshold', async () => {
    const { agent, context, model } = setup({ context: [user('1', 10)] });
    const before = structuredClone(agent.state);
    expect((await context.compress(agent)).compressed).toBe(false);
    expect(model.requests).toHaveLength(0);
    expect(agent.state).toEqual(before);
  });

  it('uses a per-call configuration', async () => {
    const { agent, context } = setup({ context: [user('1', 20), asst('2', 10)] });
    // 20 + 30 = 50 tokens: below 0.7 × 100, above 0.5 × 100.
    expect((await context.compress(agent)).compressed).toBe(false);
    expect(
      (await context.compress(agent, { config: { triggerRatio: 0.5, reserveRatio: 0.3 } })).compressed,
    ).toBe(true);
    expect(agent.state.context.map((m) => m.id)).toEqual(['2']);
  });

  it('rejects malformed instructions with a ConfigError before calling the model', async () => {
    for (const instructions of [42, { hint: 'no type' }, { type: 'text', text: 'x' }, null]) {
      const { agent, context, model } = setup({});
      const error = await context.compress(agent, { instructions: instructions as never }).catch((e) => e);
      expect(error).toBeInstanceOf(ConfigError);
      expect(error.field).toBe('instructions');
      expect(model.requests).toHaveLength(0);
    }
  });

  it('fails with a typed error when the system prompt alone reaches the threshold', async () => {
    const { agent, context } = setup({ context: [], summary: chars('s', 60) });
    const error = await context.compress(agent).catch((e) => e);
    expect(error).toBeInstanceOf(ContextThresholdError);
    expect(error.message).toMatch(
      /system prompt and the compression summary exceed the compression threshold \(70 tokens/,
    );
  });

  it('is also available as compressContext(agent, { plugin })', async () => {
    const { agent, context } = setup({});
    await compressContext(agent, { plugin: context, instructions: 'x' });
    expect(agent.state.summary).toBe(SUMMARY);
  });

  it("compressContext(agent) uses the agent's own context plugin: its trigger and its offloader", async () => {
    const offloaded: string[][] = [];
    const offloader: Offloader = {
      offloadContext: async (_session, msgs) => {
        offloaded.push(msgs.map((m) => m.id));
        return '/offload/context.jsonl';
      },
      offloadDataBlock: async (block) => block,
      offloadToolResult: async () => 'unused',
    };
    const build = (plugins: ContextPluginOptions | null) =>
      new Agent({
        name: 'Friday',
        model: new ScriptedModel([summaryStep()], { contextSize: 1000 }),
        plugins: plugins ? [contextPlugin(plugins)] : [],
        state: {
          ...createAgentState({ sessionId: 's' }),
          // 700 of 1,000 tokens: above the agent's trigger (0.5), below the default one (0.8).
          context: [user('a', 400), asst('b', 200), user('c', 100)],
        },
      });
    const configured = build({ triggerRatio: 0.5, reserveRatio: 0.2, offloader });
    const outcome = await compressContext(configured);
    expect(outcome).toMatchObject({ compressed: true, offloadPath: '/offload/context.jsonl' });
    expect(offloaded).toEqual([['a', 'b']]);
    expect(configured.state.summary).toContain("'/offload/context.jsonl'");
    // Told otherwise: another plugin's configuration (the defaults), or the agent without a context plugin.
    const other = build({ triggerRatio: 0.5, reserveRatio: 0.2, offloader });
    expect((await compressContext(other, { plugin: contextPlugin() })).compressed).toBe(false);
    expect((await compressContext(build(null))).compressed).toBe(false);
    // `config` still overrides the agent's for one call.
    const overridden = build({ triggerRatio: 0.5, reserveRatio: 0.2, offloader });
    expect((await compressContext(overridden, { config: { triggerRatio: 0.8 } })).compressed).toBe(false);
    expect(offloaded).toHaveLength(1);
  });

  it('limits images even below the threshold', async () => {
    const img = (n: string) => ({
      type: 'data' as const,
      id: n,
      name: n,
      source: { type: 'url' as const, url: `https://x/${n}.png`, mediaType: 'image/png' },
    });
    const { agent, context } = setup({
      context: [createMsg({ role: 'user', id: 'u', content: [img('a'), img('b'), textBlock('hi')] })],
      plugin: { maxImageNum: 1 },
      contextSize: 100_000,
    });
    await context.compress(agent);
    expect(agent.state.context[0]!.content.map((b) => b.type)).toEqual(['text', 'data', 'text']);
  });
});
