import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Agent } from './agent';
import { StateError } from './errors/state-error';
import { userConfirmResult } from './events';
import { getText } from './msg';
import { parseAgentState } from './state';
import { defineTool } from './define-tool';
import { ScriptedModel, textChunks } from './testing/scripted-model';

const fixture = (name: string) => readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');

describe('agent state', () => {
  it('should keep loading the committed v1 fixture of a paused reply and resume it', async () => {
    const ran: string[] = [];
    const bash = defineTool({
      name: 'bash',
      description: 'run',
      inputSchema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
      needsConfirmation: true,
      execute: ({ command }: { command: string }) => {
        ran.push(command);
        return 'a.txt';
      },
    });
    const model = new ScriptedModel([textChunks('There is a.txt.')]);
    const agent = new Agent({
      name: 'Friday',
      model,
      tools: [bash],
      state: fixture('agent-state-v1-paused.json'),
    });
    const msg = await agent.reply(
      userConfirmResult([
        { confirmed: true, toolCall: { id: 'call_1', name: 'bash', input: '{"command":"ls"}' } },
      ]),
    );
    expect(ran).toEqual(['ls']);
    expect(getText(msg)).toBe('There is a.txt.');
    expect(msg.id).toBe('reply-1');
  });

  it('should give clear errors for corrupt or incompatible states', () => {
    expect(() => parseAgentState('{not json')).toThrow(StateError);
    expect(() => parseAgentState('{not json')).toThrow(/not valid JSON/);
    expect(() => parseAgentState({ schemaVersion: 99 })).toThrow(/Unsupported agent state schemaVersion 99/);
    const good = JSON.parse(fixture('agent-state-v1-paused.json'));
    expect(() => parseAgentState({ ...good, context: 'x' })).toThrow(
      "'context' must be an array of messages",
    );
    expect(() => parseAgentState({ ...good, context: [{ id: 'm', role: 'robot', content: [] }] })).toThrow(
      /context\[0\]\.role/,
    );
    expect(() =>
      parseAgentState({ ...good, reply: { id: 'r', iteration: -1, data: {}, finish: null } }),
    ).toThrow(/reply.iteration/);
    expect(() => new Agent({ name: 'a', model: new ScriptedModel([]), state: '[]' })).toThrow(StateError);
  });

  it('should not mutate the state object it was given', async () => {
    const given = JSON.parse(fixture('agent-state-v1-paused.json'));
    const copy = structuredClone(given);
    const agent = new Agent({ name: 'Friday', model: new ScriptedModel([]), state: given });
    agent.state.context.push(agent.state.context[0]!);
    expect(given).toEqual(copy);
  });
});
