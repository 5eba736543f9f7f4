import { describe, expect, it } from 'vitest';
import { assistantMsg, userMsg } from './msg';
import { DATA_BLOCK_TOKENS, TokenCounter, estimateTextTokens } from './token-count';

describe('token counting', () => {
  it('should estimate UTF-8 bytes / 4 and a fixed cost per data block', () => {
    expect(estimateTextTokens('abcd'.repeat(10))).toBe(10);
    expect(estimateTextTokens('日本')).toBe(2); // 6 bytes
    const counter = new TokenCounter();
    const msg = userMsg([
      { type: 'data', id: 'd', source: { type: 'url', url: 'x', mediaType: 'image/png' } },
    ]);
    expect(counter.count({ systemPrompt: '', messages: [msg], tools: [] })).toBe(DATA_BLOCK_TOKENS);
  });

  it('should count incrementally: finished messages once, a growing message by its new blocks', () => {
    let calls = 0;
    const counter = new TokenCounter({
      countTokens: ({ messages }) => {
        calls++;
        return messages.length * 10;
      },
    });
    const history = Array.from({ length: 50 }, (_, i) => userMsg(`m${i}`));
    const tools: never[] = [];
    expect(counter.count({ systemPrompt: 's', messages: history, tools })).toBe(500);
    const afterFirst = calls;
    counter.count({ systemPrompt: 's', messages: history, tools });
    expect(calls).toBe(afterFirst); // nothing recounted
    const growing = assistantMsg('a');
    counter.count({ systemPrompt: 's', messages: [...history, growing], tools });
    growing.content.push({ type: 'text', id: 'x', text: 'more' });
    const before = calls;
    counter.count({ systemPrompt: 's', messages: [...history, growing], tools });
    expect(calls - before).toBe(1);
  });

  it('should notice a block edited in place', () => {
    const counter = new TokenCounter();
    const msg = assistantMsg([{ type: 'tool_call', id: 'c', name: 't', input: '{}', state: 'pending' }]);
    const before = counter.countMsg(msg);
    (msg.content[0] as { input: string }).input = JSON.stringify({ long: 'x'.repeat(400) });
    expect(counter.countMsg(msg)).toBeGreaterThan(before + 90);
  });
});

describe('token counting anchored on reported usage', () => {
  it('should use the last reported input tokens plus the estimate of what was added, until the context is replaced', async () => {
    const { Agent } = await import('./agent');
    const { ScriptedModel, textChunks, toolCallChunk, usageChunk } = await import('./testing/scripted-model');
    const { defineTool } = await import('./define-tool');
    const counts: number[] = [];
    const estimates: number[] = [];
    let replace = false;
    const tool = defineTool({
      name: 't',
      description: 'd',
      inputSchema: { type: 'object' },
      execute: () => 'x'.repeat(400),
    });
    const model = new ScriptedModel([
      [toolCallChunk('t', {}), usageChunk({ inputTokens: 1000 })],
      [toolCallChunk('t', {}), usageChunk({ inputTokens: 1200 })],
      [...textChunks('done'), usageChunk({ inputTokens: 1300 })],
    ]);
    const agent = new Agent({
      name: 'a',
      model,
      tools: [tool],
      plugins: [
        {
          name: 'meter',
          hooks: {
            beforeInference: ({ ctx, request }) => {
              if (replace) ctx.replaceContext({ summary: '', context: [...ctx.state.context] });
              counts.push(ctx.countTokens());
              estimates.push(ctx.countTokens(request));
              replace = counts.length === 2;
            },
          },
        },
      ],
    });
    await agent.reply('go');
    // First call: nothing reported yet → the estimate.
    expect(counts[0]).toBe(estimates[0]);
    // Second call: 1000 reported for the first request + the estimate of the tool round added since.
    expect(counts[1]).toBe(1000 + estimates[1]! - estimates[0]!);
    // Third call: the context was replaced before counting → back to the plain estimate.
    expect(counts[2]).toBe(estimates[2]);
  });
});

describe('counting the next request', () => {
  it('should count the same request from the agent, from a hook, and as the model receives it, summary included', async () => {
    const { Agent } = await import('./agent');
    const { ScriptedModel, textChunks } = await import('./testing/scripted-model');
    const { defineTool } = await import('./define-tool');
    const tool = defineTool({ name: 't', description: 'a tool', inputSchema: { type: 'object' } });
    const model = new ScriptedModel([textChunks('one'), textChunks('two')]);
    const fromHook: number[] = [];
    const agent = new Agent({
      name: 'a',
      systemPrompt: 'Be brief.',
      model,
      tools: [tool],
      plugins: [
        { name: 'meter', hooks: { beforeInference: ({ ctx }) => void fromHook.push(ctx.countTokens()) } },
      ],
    });
    await agent.reply('hello');
    agent.state.summary = 'The user greeted the agent twice before.';
    const before = agent.countTokens();
    await agent.reply('again');
    const sent = model.requests.at(-1)!;
    expect(sent.messages[0]).toMatchObject({ id: 'summary', role: 'user' });
    // The hook counted after the new input and the reply's (empty) message were appended; so did the model.
    expect(fromHook.at(-1)).toBe(
      agent.countTokens({ systemPrompt: sent.systemPrompt, messages: [...sent.messages], tools: sent.tools }),
    );
    expect(before).toBe(
      new (await import('./token-count')).TokenCounter().count({
        systemPrompt: 'Be brief.',
        messages: [sent.messages[0]!, ...agent.state.context.slice(0, 2)],
        tools: sent.tools,
      }),
    );
  });
});
