// issue 13: `observe()` while a reply runs must not reorder history.
import { describe, expect, it } from 'vitest';
import { Agent } from './agent';
import { defineTool } from './define-tool';
import { assistantMsg, getText, userMsg } from './msg';
import { ScriptedModel, textChunks, toolCallChunk } from './testing/scripted-model';

describe('observe() while a reply runs', () => {
  it('waits until the reply ends, then follows its message; the model never saw it out of order', async () => {
    let agent!: Agent;
    const look = defineTool({
      name: 'look',
      description: 'looks around',
      inputSchema: { type: 'object' },
      async execute() {
        // Another agent speaks while this reply is between two model calls.
        await agent.observe(assistantMsg('I am Bob, and I disagree.', { name: 'Bob', id: 'bob-1' }));
        return 'nothing here';
      },
    });
    const model = new ScriptedModel([
      [toolCallChunk('look', {})],
      textChunks('I looked.'),
      textChunks('Noted, Bob.'),
    ]);
    agent = new Agent({ name: 'Alice', model, tools: [look] });
    const reply = await agent.reply(userMsg('Look around.', { name: 'user' }));
    // During the reply the model never saw Bob's message.
    expect(model.requests[1]!.messages.map((m) => m.id)).not.toContain('bob-1');
    expect(agent.state.context.map((m) => m.id)).toEqual([agent.state.context[0]!.id, reply.id, 'bob-1']);
    const next = await agent.reply(null);
    expect(model.requests[2]!.messages.map((m) => m.id)).toEqual([
      agent.state.context[0]!.id,
      reply.id,
      'bob-1',
      next.id,
    ]);
    expect(getText(next)).toBe('Noted, Bob.');
  });

  it('is added when the reply fails too, and at once when no reply runs', async () => {
    const model = new ScriptedModel([{ error: new Error('down') }]);
    const agent = new Agent({ name: 'Alice', model, logger: { warn() {}, error() {} } });
    const pending = agent.reply('hi');
    await agent.observe(userMsg('meanwhile'));
    expect(agent.state.context.map((m) => getText(m))).not.toContain('meanwhile');
    const failed = await pending;
    expect(failed.finishedReason).toBe('error');
    expect(agent.state.context.at(-1)).toMatchObject({ content: [{ text: 'meanwhile' }] });
    await agent.observe(userMsg('now'));
    expect(getText(agent.state.context.at(-1)!)).toBe('now');
  });
});
