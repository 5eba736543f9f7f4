import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Agent,
  type AgentState,
  createAgentState,
  createMsg,
  type DataBlock,
  defineTool,
  getBlocks,
  getText,
  type Logger,
  ModelError,
  type Msg,
  textBlock,
  type ToolResultBlock,
} from '@agentkit/core';
import { ScriptedModel, textChunks, toolCallChunk, usageChunk } from '@agentkit/core/testing';
import { describe, expect, it } from 'vitest';
import { COMPRESS_CONTEXT_TEXTS } from './compress-context-tool';
import { type ContextPluginOptions, contextPlugin } from './context-plugin';
import { SUMMARY_TOOL_NAME } from './defaults';
import { ContextBusyError, ContextCompressionError } from './errors';
import { FileOffloader } from './file-offloader';
import { chars, summaryStep } from './__fixtures__/summary-fixtures';

const quiet: Logger = { warn: () => {}, error: () => {} };
/** 70 + 30 tokens of a 200-token model: above the 0.5 trigger, and the reserve (0.2) keeps only 'recent'. */
const history = (): Msg[] => [
  createMsg({ role: 'user', id: 'old', content: chars('o', 70) }),
  createMsg({ role: 'assistant', name: 'Friday', id: 'recent', content: chars('r', 30) }),
];
const SMALL: ContextPluginOptions = { triggerRatio: 0.5, reserveRatio: 0.2, contextBufferRatio: 0.1 };

function stateWith(context: Msg[]): AgentState {
  return { ...createAgentState({ sessionId: 's-1' }), context };
}

describe('compression through the kernel', () => {
  it('the model call after a compression gets exactly the summary and the kept state', async () => {
    const model = new ScriptedModel([summaryStep, textChunks('the answer')], { contextSize: 200 });
    const agent = new Agent({
      name: 'Friday',
      systemPrompt: 'Be brief.',
      model,
      plugins: [contextPlugin(SMALL)],
      state: stateWith(history()),
    });
    await agent.reply('next question');
    const sent = model.requests[1]!.messages;
    // Rebuilt from the state by the kernel after replaceContext: the summary first, then the kept context.
    expect(sent.map((m) => m.id)).toEqual(['summary', ...agent.state.context.map((m) => m.id)]);
    expect(getText(sent[0]!)).toBe(agent.state.summary);
    expect(sent.map((m) => m.id)).not.toContain('old');
  });

  it("adds the summary call's usage to the reply's usage, exactly", async () => {
    const model = new ScriptedModel(
      [summaryStep, [...textChunks('the answer'), usageChunk({ inputTokens: 7, outputTokens: 3 })]],
      { contextSize: 200 },
    );
    const agent = new Agent({
      name: 'Friday',
      model,
      plugins: [contextPlugin(SMALL)],
      state: stateWith(history()),
    });
    const msg = await agent.reply('next question');
    expect(msg.usage).toMatchObject({ inputTokens: 57, outputTokens: 13 });
    // Counted once: the kept message before the reply does not carry it too.
    const recent = agent.state.context.find((m) => m.id === 'recent')!;
    expect(recent.usage).toBeNull();
  });

  it("the summary call goes through the agent's retries", async () => {
    // A 2000-token model: the summary request fits, so a failure is not retried as an overflow.
    const model = new ScriptedModel(
      [
        { error: new ModelError('upstream', 'busy', { retryable: true, retryAfterMs: 0 }) },
        summaryStep,
        textChunks('ok'),
      ],
      { contextSize: 2000 },
    );
    const agent = new Agent({
      name: 'Friday',
      model,
      plugins: [contextPlugin({ ...SMALL, compressionFallbackToTruncation: false })],
      state: stateWith([
        createMsg({ role: 'user', id: 'old', content: chars('o', 700) }),
        createMsg({ role: 'assistant', name: 'Friday', id: 'recent', content: chars('r', 300) }),
      ]),
      modelRetry: { initialDelayMs: 1 },
    });
    const msg = await agent.reply('next question');
    expect(msg.finishedReason).toBe('completed');
    expect(model.requests.map((r) => r.toolChoice)).toEqual([
      { name: SUMMARY_TOOL_NAME },
      { name: SUMMARY_TOOL_NAME },
      'auto',
    ]);
    expect(agent.state.summary).toContain('# Task Overview\nT');
  });

  it("the summary call falls back to the agent's fallback model", async () => {
    const model = new ScriptedModel(
      [
        { error: new ModelError('invalid_request', 'unsupported tool choice', { retryable: false }) },
        textChunks('ok'),
      ],
      { contextSize: 200 },
    );
    const fallbackModel = new ScriptedModel([summaryStep], { contextSize: 200 });
    const agent = new Agent({
      name: 'Friday',
      model,
      fallbackModel,
      plugins: [contextPlugin({ ...SMALL, compressionFallbackToTruncation: false })],
      state: stateWith(history()),
    });
    const msg = await agent.reply('next question');
    expect(msg.finishedReason).toBe('completed');
    expect(fallbackModel.requests).toHaveLength(1);
    expect(fallbackModel.requests[0]!.messages[0]!.id).toBe('old');
    expect(agent.state.summary).toContain('# Next Steps\nN');
  });

  it('the CompressContext tool streams its summary through the fallback model too', async () => {
    const model = new ScriptedModel(
      [
        [toolCallChunk('CompressContext', {}, 'c1')],
        { error: new ModelError('invalid_request', 'nope', { retryable: false }) },
        textChunks('done'),
      ],
      { contextSize: 1000 },
    );
    const fallbackModel = new ScriptedModel([summaryStep], { contextSize: 1000 });
    const agent = new Agent({
      name: 'Friday',
      model,
      fallbackModel,
      plugins: [
        contextPlugin({
          triggerRatio: 0.9,
          reserveRatio: 0.1,
          contextBufferRatio: 0.4,
          compressionToolEnabled: true,
        }),
      ],
      state: stateWith([createMsg({ role: 'user', id: 'old', content: chars('o', 300) })]),
    });
    await agent.reply('tidy up');
    const result = agent.state.context
      .flatMap((m) => m.content)
      .find((b): b is ToolResultBlock => b.type === 'tool_result' && b.id === 'c1')!;
    expect(result.output).toEqual([expect.objectContaining({ text: COMPRESS_CONTEXT_TEXTS.success })]);
    expect(fallbackModel.requests).toHaveLength(1);
    expect(agent.state.context.map((m) => m.id)).not.toContain('old');
  });

  it('with the fallback off, a failed automatic summary ends the reply and leaves the state as it was', async () => {
    const failure = { error: new Error('summary model down') };
    const model = new ScriptedModel([failure, failure], { contextSize: 200 });
    const agent = new Agent({
      name: 'Friday',
      model,
      plugins: [contextPlugin({ ...SMALL, compressionFallbackToTruncation: false })],
      state: { ...stateWith(history()), summary: 'previous summary' },
      logger: quiet,
    });
    const before = structuredClone(agent.state);
    const msg = await agent.reply('next question');
    expect(msg.finishedReason).toBe('error');
    expect(msg.error?.message).toContain('summary model down');
    expect(agent.state.summary).toBe('previous summary');
    // Everything that was there stays as it was; only the new input and the failed reply were added.
    expect(agent.state.context.slice(0, before.context.length)).toEqual(before.context);
    expect(agent.state.context.slice(before.context.length).map((m) => m.role)).toEqual([
      'user',
      'assistant',
    ]);
    expect(agent.state.context.flatMap((m) => m.content).map((b) => b.type)).not.toContain('hint');
  });

  it('a failed CompressContext summary leaves the state as it was (the tool never truncates)', async () => {
    const model = new ScriptedModel(
      [[toolCallChunk('CompressContext', {}, 'c1')], { error: new Error('model down') }, textChunks('done')],
      { contextSize: 1000 },
    );
    const agent = new Agent({
      name: 'Friday',
      model,
      plugins: [
        contextPlugin({
          triggerRatio: 0.9,
          reserveRatio: 0.1,
          contextBufferRatio: 0.4,
          compressionToolEnabled: true,
        }),
      ],
      state: {
        ...stateWith([createMsg({ role: 'user', id: 'old', content: chars('o', 300) })]),
        summary: 'kept',
      },
    });
    const before = structuredClone(agent.state);
    await agent.reply('tidy up');
    expect(agent.state.summary).toBe('kept');
    expect(agent.state.context[0]).toEqual(before.context[0]);
    const result = agent.state.context
      .flatMap((m) => m.content)
      .find((b): b is ToolResultBlock => b.type === 'tool_result' && b.id === 'c1')!;
    expect(result.state).toBe('error');
  });

  it('refuses a manual compression while the agent is replying, with a typed error', async () => {
    const context = contextPlugin(SMALL);
    let agent!: Agent;
    let caught: unknown;
    const peek = defineTool({
      name: 'peek',
      description: 'tries to compress',
      inputSchema: { type: 'object' },
      execute: async () => {
        caught = await context.compress(agent).catch((e) => e);
        return 'tried';
      },
    });
    const model = new ScriptedModel([[toolCallChunk('peek', {})], textChunks('done')], {
      contextSize: 100_000,
    });
    agent = new Agent({ name: 'Friday', model, tools: [peek], plugins: [context] });
    await agent.reply('go');
    expect(caught).toBeInstanceOf(ContextBusyError);
    expect((caught as ContextBusyError).code).toBe('CONTEXT_BUSY');
    // Between replies it works again (nothing to compress here).
    expect((await context.compress(agent)).compressed).toBe(false);
  });

  it('a manual compression with the fallback off that fails throws and leaves everything as it was', async () => {
    const model = new ScriptedModel(
      [{ error: new Error('down') }, { error: new Error('down') }, textChunks('fine')],
      { contextSize: 200 },
    );
    const context = contextPlugin({ ...SMALL, compressionFallbackToTruncation: false });
    const agent = new Agent({ name: 'Friday', model, plugins: [context], state: stateWith(history()) });
    const before = structuredClone(agent.state);
    await expect(context.compress(agent)).rejects.toBeInstanceOf(ContextCompressionError);
    expect(agent.state).toEqual(before);
  });
});

describe('images beyond maxImageNum, through the kernel', () => {
  const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';
  const img = (id: string): DataBlock => ({
    type: 'data',
    id,
    name: id,
    source: { type: 'base64', data: png, mediaType: 'image/png' },
  });
  const images = (): Msg[] => [
    createMsg({ role: 'user', id: 'u1', content: [img('a'), textBlock('first')] }),
    createMsg({ role: 'user', id: 'u2', content: [img('b'), img('c'), textBlock('second')] }),
  ];
  const sentImages = (msgs: readonly Msg[]) => msgs.flatMap((m) => getBlocks(m, 'data')).map((b) => b.id);
  const sentText = (msgs: readonly Msg[]) => msgs.map((m) => getText(m)).join('\n');

  it('without an offloader, the model call sees only the newest images and a removal note', async () => {
    const model = new ScriptedModel([textChunks('seen')], { contextSize: 100_000 });
    const agent = new Agent({
      name: 'Friday',
      model,
      plugins: [contextPlugin({ maxImageNum: 1 })],
      state: stateWith(images()),
    });
    await agent.reply('look');
    const sent = model.requests[0]!.messages;
    expect(sentImages(sent)).toEqual(['c']);
    expect(sentText(sent)).toContain("The image named 'a' is removed to free up context space.");
    expect(sentText(sent)).toContain("The image named 'b' is removed");
    expect(sentImages(agent.state.context)).toEqual(['c']);
  });

  it('with an offloader, the notes say where the images went', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agentkit-img-'));
    try {
      const model = new ScriptedModel([textChunks('seen')], { contextSize: 100_000 });
      const agent = new Agent({
        name: 'Friday',
        model,
        plugins: [
          contextPlugin({
            maxImageNum: 2,
            offloader: new FileOffloader({
              directory: dir,
              userId: 'u1',
              agentId: 'a1',
              dataUrlBase: 'workspace:///',
            }),
          }),
        ],
        state: stateWith(images()),
      });
      await agent.reply('look');
      const sent = model.requests[0]!.messages;
      expect(sentImages(sent)).toEqual(['b', 'c']);
      expect(sentText(sent)).toMatch(
        /The image named 'a' is offloaded into workspace:\/\/\/data\/[0-9a-f]{64}\.png, you can refer to it when needed\./,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("an old image inside the running reply's own message is replaced, and the reply goes on in the copy", async () => {
    let n = 0;
    const shot = defineTool({
      name: 'screenshot',
      description: 'takes a screenshot',
      inputSchema: { type: 'object' },
      execute: () => ({ output: [img(`shot${++n}`)] }),
    });
    const model = new ScriptedModel(
      [
        [toolCallChunk('screenshot', {}, 's1')],
        [toolCallChunk('screenshot', {}, 's2')],
        textChunks('seen both'),
      ],
      { contextSize: 100_000 },
    );
    const agent = new Agent({
      name: 'Friday',
      model,
      tools: [shot],
      plugins: [contextPlugin({ maxImageNum: 1 })],
    });
    const msg = await agent.reply('look twice');
    expect(msg.finishedReason).toBe('completed');
    const results = (msgs: readonly Msg[]) =>
      msgs.flatMap((m) => getBlocks(m, 'tool_result')).map((r) => r.output.map((b) => b.type));
    expect(results(model.requests[2]!.messages)).toEqual([['text'], ['data']]);
    // The returned reply message is the one in the state: note, second image, final text.
    expect(results([msg])).toEqual([['text'], ['data']]);
    expect(getText(msg)).toContain('seen both');
    expect(agent.state.context.at(-1)).toEqual(msg);
  });

  it('a tool returning an image pushes the oldest one out before the next model call', async () => {
    const shot = defineTool({
      name: 'screenshot',
      description: 'takes a screenshot',
      inputSchema: { type: 'object' },
      execute: () => ({ output: [img('shot')] }),
    });
    const model = new ScriptedModel([[toolCallChunk('screenshot', {}, 's1')], textChunks('seen')], {
      contextSize: 100_000,
    });
    const agent = new Agent({
      name: 'Friday',
      model,
      tools: [shot],
      plugins: [contextPlugin({ maxImageNum: 1 })],
      state: stateWith([createMsg({ role: 'user', id: 'u1', content: [img('a'), textBlock('first')] })]),
    });
    await agent.reply('look');
    expect(sentImages(model.requests[0]!.messages)).toEqual(['a']);
    const second = model.requests[1]!.messages;
    expect(sentImages(second)).toEqual([]);
    expect(sentText(second)).toContain("The image named 'a' is removed to free up context space.");
    const result = second.flatMap((m) => getBlocks(m, 'tool_result'))[0]!;
    expect(result.output.map((b) => b.id)).toEqual(['shot']);
  });
});
