import { describe, expect, it } from 'vitest';
import { Agent } from '../agent';
import { userConfirmResult } from '../events';
import { getText } from '../msg';
import { parseAgentState } from '../state';
import { defineTool } from '../define-tool';
import { pausedStateFixture } from './paused-state-fixture';
import { ScriptedModel, textChunks } from './scripted-model';

describe('pausedStateFixture', () => {
  it('is a valid agent state that survives JSON and parseAgentState unchanged', () => {
    const state = pausedStateFixture({ sessionId: 's1' });
    expect(state.sessionId).toBe('s1');
    expect(parseAgentState(JSON.stringify(state))).toEqual(state);
    expect(parseAgentState(state)).toEqual(state);
  });

  it('returns a new object on every call; the note makes states differ', () => {
    const a = pausedStateFixture();
    const b = pausedStateFixture();
    expect(a).toEqual(b);
    expect(a).not.toBe(b);
    a.context.length = 0;
    expect(pausedStateFixture().context).toHaveLength(2);
    expect(pausedStateFixture({ note: 'x' })).not.toEqual(b);
    expect(b.sessionId).toBe('session-1');
  });

  it('is a reply paused for confirmation that an Agent resumes: the confirmed call runs once', async () => {
    const ran: string[] = [];
    const bash = defineTool<{ command: string }>({
      name: 'Bash',
      description: 'Run a shell command',
      inputSchema: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] },
      needsConfirmation: true,
      execute: ({ command }) => {
        ran.push(command);
        return 'removed';
      },
    });
    const model = new ScriptedModel([textChunks('Deleted both files.')]);
    const agent = new Agent({ name: 'Friday', model, tools: [bash], state: pausedStateFixture() });
    const msg = await agent.reply(
      userConfirmResult([
        {
          confirmed: true,
          toolCall: { id: 'call_2', name: 'Bash', input: '{"command":"rm /tmp/a.tmp /tmp/b.tmp"}' },
        },
      ]),
    );
    expect(ran).toEqual(['rm /tmp/a.tmp /tmp/b.tmp']);
    expect(msg.id).toBe('reply-1');
    expect(msg.finishedReason).not.toBeNull();
    expect(getText(msg)).toContain('Deleted both files.');
  });
});
