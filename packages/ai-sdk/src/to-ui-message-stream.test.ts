import { Agent, definePlugin, getText, ModelError, type ToolResultBlock } from '@agentkit/core';
import { ScriptedModel, textChunks, toolCallChunk } from '@agentkit/core/testing';
import { asSchema, readUIMessageStream, type UIMessage, type UIMessageChunk, uiMessageChunkSchema } from 'ai';
import { describe, expect, it } from 'vitest';
import { deployScript, deployTool, quiet } from '@agentkit/test-fixtures';
import { toUIMessageStream, toUIMessageStreamResponse } from './index';

async function collect(stream: ReadableStream<UIMessageChunk>): Promise<UIMessageChunk[]> {
  const chunks: UIMessageChunk[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<UIMessageChunk>) chunks.push(chunk);
  return chunks;
}

async function expectValid(chunks: UIMessageChunk[]) {
  const schema = asSchema(uiMessageChunkSchema);
  for (const chunk of chunks)
    expect(await schema.validate!(chunk), JSON.stringify(chunk)).toMatchObject({ success: true });
}

async function lastMessage(chunks: UIMessageChunk[]): Promise<UIMessage> {
  const stream = new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
  let message: UIMessage | undefined;
  for await (const m of readUIMessageStream({ stream, terminateOnError: true })) message = m;
  return message!;
}

describe('toUIMessageStream', () => {
  it("maps a reply to chunks the AI SDK's reader rebuilds into the same message", async () => {
    const runs: string[] = [];
    const agent = new Agent({
      name: 'ops',
      model: new ScriptedModel(deployScript()),
      tools: [deployTool(runs)],
    });
    const chunks = await collect(toUIMessageStream(agent.replyStream('Deploy billing.')));
    await expectValid(chunks);
    const stored = agent.state.context.at(-1)!;
    expect(chunks[0]).toEqual({ type: 'start', messageId: stored.id });
    expect(chunks.at(-1)).toMatchObject({
      type: 'finish',
      finishReason: 'stop',
      messageMetadata: { finishedReason: 'completed', usage: { inputTokens: 50, outputTokens: 11 } },
    });

    const message = await lastMessage(chunks);
    expect(message.id).toBe(stored.id);
    expect(message.role).toBe('assistant');
    const parts = message.parts.filter((p) => p.type !== 'step-start');
    expect(parts).toEqual([
      expect.objectContaining({ type: 'reasoning', text: 'The user wants billing deployed.', state: 'done' }),
      expect.objectContaining({ type: 'text', text: 'Deploying billing now.', state: 'done' }),
      expect.objectContaining({
        type: 'tool-deploy',
        toolCallId: 'call_deploy',
        state: 'output-available',
        input: { service: 'billing' },
        output: 'deployed billing',
      }),
      expect.objectContaining({ type: 'text', text: 'Billing is deployed.', state: 'done' }),
    ]);
    // Two model calls, two steps; the tool result belongs to the first.
    expect(message.parts.filter((p) => p.type === 'step-start')).toHaveLength(2);
    expect(message.parts.map((p) => p.type).indexOf('tool-deploy')).toBeLessThan(
      message.parts.map((p) => p.type).lastIndexOf('step-start'),
    );
    expect(message.metadata).toMatchObject({ usage: stored.usage, finishedReason: 'completed' });
    expect(getText(stored, '')).toBe('Deploying billing now.Billing is deployed.');
    expect(runs).toEqual(['billing']);
  });

  it("maps a plugin's custom events to data parts", async () => {
    const progress = definePlugin({
      name: 'progress',
      hooks: { beforeInference: ({ ctx }) => ctx.emit('progress', { step: 1 }) },
    });
    const agent = new Agent({
      name: 'ops',
      model: new ScriptedModel([textChunks('Done.')]),
      plugins: [progress],
    });
    const chunks = await collect(toUIMessageStream(agent.replyStream('Go.')));
    await expectValid(chunks);
    const message = await lastMessage(chunks);
    expect(message.parts).toContainEqual({ type: 'data-progress', data: { step: 1 } });
  });

  it('leaves reasoning out when asked to', async () => {
    const agent = new Agent({
      name: 'ops',
      model: new ScriptedModel(deployScript()),
      tools: [deployTool([])],
    });
    const chunks = await collect(toUIMessageStream(agent.replyStream('Deploy.'), { reasoning: false }));
    expect(chunks.some((c) => c.type.startsWith('reasoning'))).toBe(false);
    const message = await lastMessage(chunks);
    expect(message.parts.some((p) => p.type === 'reasoning')).toBe(false);
    expect(message.parts.some((p) => p.type === 'text')).toBe(true);
  });

  it('pauses on a tool that needs confirmation with a tool-approval-request and finish tool-calls', async () => {
    const runs: string[] = [];
    const agent = new Agent({
      name: 'ops',
      model: new ScriptedModel(deployScript()),
      tools: [deployTool(runs, { confirm: true })],
    });
    const chunks = await collect(toUIMessageStream(agent.replyStream('Deploy billing.')));
    await expectValid(chunks);
    expect(chunks).toContainEqual({
      type: 'tool-approval-request',
      approvalId: 'call_deploy',
      toolCallId: 'call_deploy',
    });
    expect(chunks.at(-1)).toMatchObject({
      type: 'finish',
      finishReason: 'tool-calls',
      messageMetadata: { finishedReason: null },
    });
    const message = await lastMessage(chunks);
    expect(message.parts.find((p) => p.type === 'tool-deploy')).toMatchObject({
      state: 'approval-requested',
      input: { service: 'billing' },
      approval: { id: 'call_deploy' },
    });
    expect(runs).toEqual([]);
  });

  it('maps tool errors, denials and input that is not JSON', async () => {
    const agent = new Agent({
      name: 'ops',
      model: new ScriptedModel([
        [toolCallChunk('deploy', '{"service":', 'bad'), toolCallChunk('missing', {}, 'unknown')],
        textChunks('Sorry.'),
      ]),
      tools: [deployTool([])],
    });
    const chunks = await collect(toUIMessageStream(agent.replyStream('Deploy.')));
    await expectValid(chunks);
    expect(chunks).toContainEqual(
      expect.objectContaining({ type: 'tool-input-error', toolCallId: 'bad', input: '{"service":' }),
    );
    const message = await lastMessage(chunks);
    const stored = agent.state.context.at(-1)!;
    for (const id of ['bad', 'unknown']) {
      const result = stored.content.find(
        (b): b is ToolResultBlock => b.type === 'tool_result' && b.id === id,
      )!;
      expect(result.state).toBe('error');
      const part = message.parts.find((p) => 'toolCallId' in p && p.toolCallId === id);
      expect(part).toMatchObject({
        state: 'output-error',
        errorText: (result.output[0] as { text: string }).text,
      });
    }
  });

  it('ends a failed reply with an error chunk and finish error', async () => {
    const agent = new Agent({
      name: 'ops',
      model: new ScriptedModel([
        { error: new ModelError('invalid_request', 'The model rejected the request.') },
      ]),
      logger: quiet,
    });
    const chunks = await collect(toUIMessageStream(agent.replyStream('Hi')));
    await expectValid(chunks);
    expect(chunks.slice(-2)).toEqual([
      { type: 'error', errorText: 'The model rejected the request.' },
      expect.objectContaining({
        type: 'finish',
        finishReason: 'error',
        messageMetadata: expect.objectContaining({
          finishedReason: 'error',
          error: { type: 'invalid_request', message: 'The model rejected the request.' },
        }),
      }),
    ]);
  });

  it('ends an interrupted reply with abort and finish interrupted', async () => {
    const controller = new AbortController();
    const agent = new Agent({
      name: 'ops',
      model: new ScriptedModel([{ chunks: textChunks('one two three four five six'), delayMs: 30 }]),
    });
    const chunks: UIMessageChunk[] = [];
    for await (const chunk of toUIMessageStream(
      agent.replyStream('Count.', { signal: controller.signal }),
    ) as unknown as AsyncIterable<UIMessageChunk>) {
      chunks.push(chunk);
      if (chunk.type === 'text-delta') controller.abort();
    }
    await expectValid(chunks);
    expect(chunks.slice(-2)).toEqual([
      { type: 'abort', reason: 'The reply was interrupted.' },
      expect.objectContaining({ type: 'finish', finishReason: 'interrupted' }),
    ]);
    const message = await lastMessage(chunks);
    expect(message.parts.find((p) => p.type === 'text')).toMatchObject({ state: 'done' });
  });

  it('ends with an error chunk when the event stream throws, without leaking the error text', async () => {
    async function* broken() {
      yield {
        type: 'REPLY_START',
        replyId: 'r1',
        sessionId: 's',
        name: 'a',
        role: 'assistant',
        createdAt: '',
      } as const;
      throw new Error('secret-token-123 leaked');
    }
    const chunks = await collect(toUIMessageStream(broken()));
    await expectValid(chunks);
    expect(chunks[0]).toEqual({ type: 'start', messageId: 'r1' });
    const error = chunks.find((c) => c.type === 'error') as { errorText: string };
    expect(error.errorText).not.toContain('secret');
    expect(chunks.at(-1)).toMatchObject({ type: 'finish', finishReason: 'error' });
  });

  it('answers with the headers the default chat transport expects', async () => {
    const agent = new Agent({ name: 'ops', model: new ScriptedModel([textChunks('Hello!')]) });
    const response = toUIMessageStreamResponse(agent.replyStream('Hi'));
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const body = await response.text();
    expect(body).toMatch(/^data: \{"type":"start"/);
    expect(body.trimEnd()).toMatch(/data: \[DONE\]$/);
  });

  it("gives a plugin's own model call (a summary) no step, and counts its usage", async () => {
    const summarizer = definePlugin({
      name: 'summarizer',
      hooks: {
        async beforeInference({ ctx }) {
          for await (const _ of ctx.streamModel({
            systemPrompt: '',
            messages: [],
            tools: [],
            toolChoice: 'none',
          })) {
            // the summary's text is not the reply's
          }
        },
      },
    });
    const model = new ScriptedModel([
      [
        ...textChunks('a summary'),
        {
          type: 'usage',
          usage: {
            inputTokens: 5,
            outputTokens: 3,
            cacheInputTokens: 0,
            cacheCreationInputTokens: 0,
            reasoningTokens: 0,
          },
        },
      ],
      textChunks('The answer.'),
    ]);
    const agent = new Agent({ name: 'ops', model, plugins: [summarizer] });
    const chunks = await collect(toUIMessageStream(agent.replyStream('Hi.')));
    await expectValid(chunks);
    expect(chunks.filter((c) => c.type === 'start-step')).toHaveLength(1);
    expect(chunks.at(-1)).toMatchObject({ messageMetadata: { usage: { inputTokens: 5, outputTokens: 3 } } });
    const texts = (await lastMessage(chunks)).parts.filter((p) => p.type === 'text');
    expect(texts.map((p) => (p as { text: string }).text)).toEqual(['The answer.']);
  });
});
