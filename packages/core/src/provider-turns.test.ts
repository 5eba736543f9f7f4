import { describe, expect, it } from 'vitest';
import { Agent } from './agent';
import { assistantMsg, createMsg, userMsg } from './msg';
import { toProviderTurns } from './provider-turns';
import { ScriptedModel, textChunks } from './testing/scripted-model';

describe('toProviderTurns with agentName', () => {
  const bob = createMsg({
    role: 'assistant',
    name: 'Bob',
    id: 'b1',
    content: [
      { type: 'thinking', id: 't', thinking: 'private' },
      { type: 'text', id: 'x', text: 'I disagree.' },
      { type: 'tool_call', id: 'c', name: 'search', input: '{}', state: 'finished' },
    ],
  });
  const own = createMsg({
    role: 'assistant',
    name: 'Alice',
    id: 'a1',
    content: [{ type: 'text', id: 'y', text: 'Hi.' }],
  });

  it("keeps another agent's message another speaker's: an attributed user turn, text and data only", () => {
    const turns = toProviderTurns([userMsg('Discuss.'), own, bob], { agentName: 'Alice' });
    expect(turns).toEqual([
      { role: 'user', content: [expect.objectContaining({ text: 'Discuss.' })] },
      { role: 'assistant', content: [own.content[0]] },
      { role: 'user', name: 'Bob', content: [{ type: 'text', id: 'x', text: 'Bob: I disagree.' }] },
    ]);
    // The message itself is not changed.
    expect(bob.content[1]).toEqual({ type: 'text', id: 'x', text: 'I disagree.' });
  });

  it('leaves unnamed assistant messages, and every message without agentName, the model’s own', () => {
    expect(toProviderTurns([assistantMsg('seeded answer')], { agentName: 'Alice' })[0]!.role).toBe(
      'assistant',
    );
    expect(toProviderTurns([bob])[0]!.role).toBe('assistant');
  });

  it('a data-only message of another speaker gets its name as a text before the data', () => {
    const image = createMsg({
      role: 'assistant',
      name: 'Bob',
      id: 'b2',
      content: [
        { type: 'data', id: 'd', source: { type: 'url', url: 'https://x/y.png', mediaType: 'image/png' } },
      ],
    });
    expect(toProviderTurns([image], { agentName: 'Alice' })[0]).toMatchObject({
      role: 'user',
      name: 'Bob',
      content: [{ type: 'text', text: 'Bob:' }, { type: 'data' }],
    });
  });

  it('the agent tells adapters its name in every request', async () => {
    let seen: string | undefined;
    const spy = new ScriptedModel([
      (request) => {
        seen = request.agentName;
        return textChunks('ok');
      },
    ]);
    await new Agent({ name: 'Alice', model: spy }).reply('hi');
    expect(seen).toBe('Alice');
  });
});
