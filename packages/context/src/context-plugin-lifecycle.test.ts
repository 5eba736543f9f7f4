import {
  Agent,
  type AgentState,
  type ChatModel,
  createAgentState,
  createMsg,
  defineTool,
  getText,
  type TokenCountInput,
  TokenCounter,
  type ToolCallBlock,
  userConfirmResult,
} from '@agentkit/core';
import { ScriptedModel, textChunks, toolCallChunk } from '@agentkit/core/testing';
import { describe, expect, it } from 'vitest';
import { contextPlugin } from './context-plugin';
import { SUMMARY_TOOL_NAME } from './defaults';
import { FIELDS, chars } from './__fixtures__/summary-fixtures';

describe('compression and the reply lifecycle', () => {
  it('a manual compression of a paused reply keeps the calls it waits for, and the reply resumes', async () => {
    const deploy = defineTool({
      name: 'deploy',
      description: 'Deploys',
      inputSchema: { type: 'object' },
      needsConfirmation: true,
      execute: () => 'deployed',
    });
    const model = new ScriptedModel(
      [
        [toolCallChunk('deploy', {}, 'd1')],
        [toolCallChunk(SUMMARY_TOOL_NAME, FIELDS)],
        textChunks('all done'),
      ],
      {
        contextSize: 400,
      },
    );
    const context = contextPlugin({ triggerRatio: 0.5, reserveRatio: 0.1, contextBufferRatio: 0.1 });
    const state: AgentState = {
      ...createAgentState(),
      context: [createMsg({ role: 'user', id: 'old', content: chars('o', 150) })],
    };
    const agent = new Agent({ name: 'Friday', model, tools: [deploy], plugins: [context], state });
    const paused = await agent.reply('ship it');
    expect(paused.finishedReason).toBeNull();

    // Below the plugin's threshold (200 tokens); this call's configuration compresses from 120 and keeps
    // (almost) nothing back: only the call the paused reply waits for must stay.
    const outcome = await context.compress(agent, { config: { triggerRatio: 0.3, reserveRatio: 0.01 } });
    expect(outcome.compressed).toBe(true);
    const replyMsg = agent.state.context.find((m) => m.id === agent.state.reply!.id)!;
    const call = replyMsg.content.find((b): b is ToolCallBlock => b.type === 'tool_call')!;
    expect(call).toMatchObject({ id: 'd1', state: 'asking' });
    expect(agent.state.context.map((m) => m.id)).not.toContain('old');

    const done = await agent.reply(userConfirmResult([{ confirmed: true, toolCall: call }]));
    expect(done.finishedReason).toBe('completed');
    expect(getText(done)).toBe('all done');
  });

  it('a CompressContext call queued behind a confirmation runs after a resume in a fresh agent', async () => {
    const deploy = defineTool({
      name: 'deploy',
      description: 'Deploys',
      inputSchema: { type: 'object' },
      needsConfirmation: true,
      execute: () => 'deployed',
    });
    const options = {
      triggerRatio: 0.9,
      reserveRatio: 0.1,
      contextBufferRatio: 0.4,
      compressionToolEnabled: true,
    };
    const first = new Agent({
      name: 'Friday',
      model: new ScriptedModel(
        [[toolCallChunk('deploy', {}, 'd1'), toolCallChunk('CompressContext', {}, 'c1')]],
        { contextSize: 1000 },
      ),
      tools: [deploy],
      plugins: [contextPlugin(options)],
      state: {
        ...createAgentState(),
        context: [createMsg({ role: 'user', id: 'old', content: chars('o', 300) })],
      },
    });
    const paused = await first.reply('deploy, then tidy up');
    expect(paused.finishedReason).toBeNull();

    const model = new ScriptedModel([[toolCallChunk(SUMMARY_TOOL_NAME, FIELDS)], textChunks('done')], {
      contextSize: 1000,
    });
    const second = new Agent({
      name: 'Friday',
      model,
      tools: [deploy],
      plugins: [contextPlugin(options)],
      state: JSON.parse(JSON.stringify(first.state)),
    });
    const call = second.state.context
      .at(-1)!
      .content.find((b): b is ToolCallBlock => b.type === 'tool_call' && b.id === 'd1')!;
    const done = await second.reply(userConfirmResult([{ confirmed: true, toolCall: call }]));
    expect(done.finishedReason).toBe('completed');
    expect(second.state.summary).toContain('# Task Overview\nT');
    const blocks = second.state.context.flatMap((m) => m.content).map((b) => `${b.type}:${b.id}`);
    expect(blocks).toEqual(
      expect.arrayContaining(['tool_call:d1', 'tool_call:c1', 'tool_result:d1', 'tool_result:c1']),
    );
    expect(second.state.context.map((m) => m.id)).not.toContain('old');
  });

  it('an interrupt during the summary call ends the reply as interrupted and leaves the context alone', async () => {
    const model = new ScriptedModel(
      [{ chunks: [toolCallChunk(SUMMARY_TOOL_NAME, FIELDS)], delayMs: 200 }, textChunks('never')],
      {
        contextSize: 200,
      },
    );
    const state: AgentState = {
      ...createAgentState(),
      context: [createMsg({ role: 'user', id: 'old', content: chars('o', 150) })],
    };
    const agent = new Agent({ name: 'Friday', model, plugins: [contextPlugin()], state });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const msg = await agent.reply('next', { signal: controller.signal });
    expect(msg.finishedReason).toBe('interrupted');
    expect(agent.state.summary).toBe('');
    expect(agent.state.context[0]!.id).toBe('old');
    expect(model.requests).toHaveLength(1);
  });

  it('a summary failure with the fallback off ends the reply with an error', async () => {
    const model = new ScriptedModel(
      [{ error: new Error('summary model down') }, { error: new Error('summary model down') }],
      {
        contextSize: 200,
      },
    );
    const state: AgentState = {
      ...createAgentState(),
      context: [createMsg({ role: 'user', id: 'old', content: chars('o', 170) })],
    };
    const agent = new Agent({
      name: 'Friday',
      model,
      plugins: [contextPlugin({ compressionFallbackToTruncation: false })],
      state,
    });
    const msg = await agent.reply('next');
    expect(msg.finishedReason).toBe('error');
    // The failure is the compression's, attributed to the plugin and its hook.
    expect(msg.error?.type).toBe('internal');
    expect(msg.error?.message).toMatch(
      /^Plugin '@agentkit\/context' failed in hook 'beforeInference': .*summary model down/,
    );
    expect(agent.state.context[0]!.id).toBe('old');
  });
});

describe('scale', () => {
  it('counts each message once: the counting work per model call does not grow with the conversation', async () => {
    let counted = 0;
    const plain = new TokenCounter();
    const countTokens = (input: TokenCountInput) => {
      counted += input.messages.length;
      return plain.count(input);
    };
    // A model that records nothing (ScriptedModel copies every request, which grows with the conversation).
    const model: ChatModel = {
      name: 'instant',
      contextSize: 10_000_000,
      countTokens,
      async *stream() {
        yield { type: 'text', delta: 'ok' };
      },
    };
    const agent = new Agent({ name: 'Friday', model, plugins: [contextPlugin({ maxImageNum: 3 })] });
    const perReply: number[] = [];
    for (let turn = 0; turn < 500; turn++) {
      const before = counted;
      await agent.reply(`turn ${turn} ${'words '.repeat(20)}`);
      perReply.push(counted - before);
    }
    expect(agent.state.context).toHaveLength(1000);
    // The work of reply 500 is that of reply 10: only the new messages are counted.
    expect(perReply[499]).toBe(perReply[9]);
    expect(perReply[499]).toBeLessThanOrEqual(4);
  });
});
