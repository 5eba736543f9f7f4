import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Agent,
  type AgentEvent,
  type AgentState,
  createAgentState,
  createMsg,
  defineTool,
  getBlocks,
  getText,
  type Msg,
  type ToolResultBlock,
} from '@agentkit/core';
import { ScriptedModel, type ScriptedResponse, textChunks, toolCallChunk } from '@agentkit/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMPRESS_CONTEXT_TEXTS } from './compress-context-tool';
import { type ContextPluginOptions, contextPlugin } from './context-plugin';
import { SUMMARY_TOOL_NAME } from './defaults';
import { FileOffloader } from './file-offloader';
import { chars, summaryStep } from './__fixtures__/summary-fixtures';

function makeAgent(options: {
  script: ScriptedResponse[];
  contextSize: number;
  plugin: ContextPluginOptions;
  context?: Msg[];
  tools?: ConstructorParameters<typeof Agent>[0]['tools'];
}) {
  const model = new ScriptedModel(options.script, { contextSize: options.contextSize });
  const context = contextPlugin(options.plugin);
  const state: AgentState = { ...createAgentState({ sessionId: 's-1' }), context: options.context ?? [] };
  const agent = new Agent({
    name: 'Friday',
    systemPrompt: 'You are helpful.',
    model,
    plugins: [context],
    state,
    tools: options.tools,
  });
  return { agent, model, context };
}

async function collect(stream: AsyncIterable<AgentEvent | Msg>): Promise<AgentEvent[]> {
  const events: AgentEvent[] = [];
  for await (const e of stream) if ('type' in e) events.push(e as AgentEvent);
  return events;
}

const fetchTool = (tokens: number) =>
  defineTool({
    name: 'fetch',
    description: 'Fetches a page',
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    execute: () => chars('x', tokens),
  });

describe('automatic compression before a model call', () => {
  it('summarises the old messages and the model call sees the summary and the kept context', async () => {
    const { agent, model } = makeAgent({
      script: [summaryStep, textChunks('the answer')],
      contextSize: 200,
      plugin: { triggerRatio: 0.5, reserveRatio: 0.2, contextBufferRatio: 0.1 },
      context: [
        createMsg({ role: 'user', id: 'old', content: chars('o', 70) }),
        createMsg({ role: 'assistant', name: 'Friday', id: 'recent', content: chars('r', 30) }),
      ],
    });
    const events = await collect(agent.replyStream('next question'));
    expect(model.requests).toHaveLength(2);
    expect(model.requests[0]!.toolChoice).toEqual({ name: SUMMARY_TOOL_NAME });
    expect(model.requests[0]!.messages[0]!.id).toBe('old');
    const call = model.requests[1]!;
    expect(getText(call.messages[0]!)).toContain('# Task Overview\nT');
    expect(call.messages.slice(1, 2).map((m) => m.id)).toEqual(['recent']);
    expect(getText(call.messages[2]!)).toBe('next question');
    expect(agent.state.summary).toContain('# Next Steps\nN');
    expect(agent.state.context.map((m) => m.id)).not.toContain('old');
    const reply = agent.state.context.at(-1)!;
    expect(reply.id).toBe(agent.state.reply!.id);
    expect(getText(reply)).toBe('the answer');
    const custom = events.find((e) => e.type === 'CUSTOM');
    expect(custom).toMatchObject({
      name: 'context.compressed',
      value: { trigger: 'auto', fallback: false, compressedMessages: 1 },
    });
  });

  it('does not call the model for a summary below the threshold', async () => {
    const { agent, model } = makeAgent({ script: [textChunks('hi')], contextSize: 10_000, plugin: {} });
    await agent.reply('hello');
    expect(model.requests).toHaveLength(1);
    expect(agent.state.summary).toBe('');
  });

  it('splits the current reply message mid-reply: the kept copy keeps the reply id and the reply goes on', async () => {
    const { agent, model } = makeAgent({
      script: [
        [toolCallChunk('fetch', {}, 'big')],
        [toolCallChunk('small', {}, 'small')],
        summaryStep,
        textChunks('done'),
      ],
      // Threshold 500 tokens: reached only after the second tool round (≈ 450 + 62 tokens). Budget 200 keeps
      // the second round (≈ 62 + 47 tokens of prompt and schemas) but not the first (250).
      contextSize: 1000,
      plugin: { triggerRatio: 0.5, reserveRatio: 0.2, contextBufferRatio: 0.1 },
      context: [createMsg({ role: 'user', id: 'old', content: chars('o', 150) })],
      tools: [
        fetchTool(250),
        defineTool({
          name: 'small',
          description: 's',
          inputSchema: { type: 'object' },
          execute: () => chars('s', 60),
        }),
      ],
    });
    const msg = await agent.reply('go');
    expect(msg.finishedReason).toBe('completed');
    expect(model.requests).toHaveLength(4);
    // The summary call got the old messages and the first half of the reply message.
    const summarised = model.requests[2]!.messages;
    const replyId = agent.state.reply!.id;
    const part = summarised.find((m) => m.id === replyId)!;
    expect(part.content.map((b) => `${b.type}:${b.id}`)).toEqual(['tool_call:big', 'tool_result:big']);
    // The state keeps the second half under the same id, and the reply continued in it.
    const kept = agent.state.context.filter((m) => m.id === replyId);
    expect(kept).toHaveLength(1);
    expect(kept[0]!.content.map((b) => `${b.type}:${b.type === 'text' ? b.text : b.id}`)).toEqual([
      'tool_call:small',
      'tool_result:small',
      'text:done',
    ]);
    expect(agent.state.context.at(-1)!.id).toBe(replyId);
    // The summary call's usage is counted in the reply's usage.
    expect(msg.usage?.inputTokens).toBeGreaterThanOrEqual(50);
    // The last model call saw the summary first and no orphan tool result.
    const last = model.requests[3]!.messages;
    expect(getText(last[0]!)).toContain('<system-info>');
    expect(JSON.stringify(last)).not.toContain('"id":"big"');
  });
});

describe('tool result truncation', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agentkit-ctx-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('cuts a long result at toolResultLimit, offloads the rest and tells the agent where', async () => {
    const { agent } = makeAgent({
      script: [[toolCallChunk('fetch', {}, 'call-1')], textChunks('done')],
      contextSize: 100_000,
      plugin: {
        toolResultLimit: 50,
        offloader: new FileOffloader({ directory: dir, userId: 'u1', agentId: 'a1' }),
      },
      tools: [fetchTool(250)],
    });
    const events = await collect(agent.replyStream('go'));
    const saved = agent.state.context
      .at(-1)!
      .content.find((b): b is ToolResultBlock => b.type === 'tool_result')!;
    const text = getBlocks({ content: saved.output }, 'text')[0]!.text;
    const file = join(dir, 'sessions', '_u1', '_a1', '_s-1', 'tool_result-_call-1.txt');
    expect(text).toBe(
      `${chars('x', 50)}\n<<<TRUNCATED>>>\n<system-reminder>The remaining content has been omitted for limited context. You can refer to the file in '${file}' for the truncated content if needed.</system-reminder>`,
    );
    expect(await readFile(file, 'utf8')).toBe(chars('x', 200));
    // The streamed deltas held the full output; TOOL_RESULT_END carries what was saved.
    const end = events.find((e) => e.type === 'TOOL_RESULT_END') as Extract<
      AgentEvent,
      { type: 'TOOL_RESULT_END' }
    >;
    expect(end.output).toEqual(saved.output);
  });

  it('cuts without an offloader and says the rest was omitted', async () => {
    const { agent } = makeAgent({
      script: [[toolCallChunk('fetch', {}, 'call-1')], textChunks('done')],
      contextSize: 100_000,
      plugin: { toolResultLimit: 50 },
      tools: [fetchTool(250)],
    });
    await agent.reply('go');
    const saved = agent.state.context
      .at(-1)!
      .content.find((b): b is ToolResultBlock => b.type === 'tool_result')!;
    expect(getBlocks({ content: saved.output }, 'text')[0]!.text).toBe(
      `${chars('x', 50)}\n<<<TRUNCATED>>>\n<system-reminder>The remaining content has been omitted for limited context.</system-reminder>`,
    );
  });

  it('leaves results at or below the limit untouched', async () => {
    const { agent } = makeAgent({
      script: [[toolCallChunk('fetch', {}, 'call-1')], textChunks('done')],
      contextSize: 100_000,
      plugin: { toolResultLimit: 50 },
      tools: [fetchTool(50)],
    });
    await agent.reply('go');
    const saved = agent.state.context
      .at(-1)!
      .content.find((b): b is ToolResultBlock => b.type === 'tool_result')!;
    expect(getBlocks({ content: saved.output }, 'text').map((b) => b.text)).toEqual([chars('x', 50)]);
  });
});

describe('the CompressContext tool', () => {
  const compressCall = (id = 'compress-1'): ScriptedResponse => [toolCallChunk('CompressContext', {}, id)];
  // Trigger 0.9 and buffer 0.4 of 1000 tokens: the tool acts from 500 tokens, automatic compression from 900.
  // (The tool's own schema is about 260 tokens of the input.)
  const plugin: ContextPluginOptions = {
    triggerRatio: 0.9,
    reserveRatio: 0.1,
    contextBufferRatio: 0.4,
    compressionToolEnabled: true,
  };

  it('compresses below the hard threshold and keeps its own call/result pair', async () => {
    const { agent, model } = makeAgent({
      script: [compressCall(), summaryStep, textChunks('done')],
      contextSize: 1000,
      plugin,
      context: [createMsg({ role: 'user', id: 'old', content: chars('o', 300) })],
    });
    const msg = await agent.reply('continue');
    expect(getText(msg)).toBe('done');
    expect(model.requests).toHaveLength(3);
    expect(agent.state.summary).toContain('# Current State\nS');
    const pair = agent.state.context
      .flatMap((m) => m.content)
      .filter((b) => (b.type === 'tool_call' || b.type === 'tool_result') && b.id === 'compress-1');
    expect(pair.map((b) => b.type)).toEqual(['tool_call', 'tool_result']);
    expect(pair[1]).toMatchObject({
      state: 'success',
      output: [{ type: 'text', text: COMPRESS_CONTEXT_TEXTS.success }],
    });
    expect(agent.state.context.map((m) => m.id)).not.toContain('old');
  });

  it('leaves a small context unchanged without calling the model', async () => {
    const { agent, model } = makeAgent({
      script: [compressCall(), textChunks('done')],
      contextSize: 1000,
      plugin,
    });
    await agent.reply('hi');
    expect(model.requests).toHaveLength(2);
    const result = agent.state.context
      .at(-1)!
      .content.find((b): b is ToolResultBlock => b.type === 'tool_result')!;
    expect(result).toMatchObject({
      state: 'success',
      output: [{ type: 'text', text: COMPRESS_CONTEXT_TEXTS.tooShort }],
    });
  });

  it('reports a failed summary as an error result and leaves the history in place', async () => {
    const { agent } = makeAgent({
      script: [compressCall(), { error: new Error('model down') }, textChunks('done')],
      contextSize: 1000,
      plugin,
      context: [createMsg({ role: 'user', id: 'old', content: chars('o', 300) })],
    });
    await agent.reply('continue');
    const result = agent.state.context
      .at(-1)!
      .content.find((b): b is ToolResultBlock => b.type === 'tool_result')!;
    expect(result.state).toBe('error');
    expect(getBlocks({ content: result.output }, 'text')[0]!.text).toMatch(
      /^Context compression failed: .*model down/,
    );
    expect(agent.state.summary).toBe('');
    expect(agent.state.context[0]!.id).toBe('old');
  });

  it('is one instance, mounted only when enabled, stable across replies and agents', async () => {
    const enabled = contextPlugin({ compressionToolEnabled: true });
    const tool = enabled.tools![0]!;
    const a = new Agent({
      name: 'a',
      model: new ScriptedModel([textChunks('x'), textChunks('y')]),
      plugins: [enabled],
    });
    await a.reply('one');
    await a.reply('two');
    expect(a.tools.find((t) => t.name === 'CompressContext')).toBe(tool);
    const b = new Agent({ name: 'b', model: new ScriptedModel([]), plugins: [contextPlugin()] });
    expect(b.tools.map((t) => t.name)).not.toContain('CompressContext');
  });
});
