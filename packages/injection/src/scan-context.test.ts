import { assistantMsg, type HintBlock, userMsg } from '@agentkit/core';
import { describe, expect, it } from 'vitest';
import { hintText, scanContext } from './scan-context';
import { DEFAULT_INJECTION_SOURCE } from './texts';

const hint = (text: HintBlock['hint'], source: string | null = DEFAULT_INJECTION_SOURCE): HintBlock => ({
  type: 'hint',
  id: Math.random().toString(36),
  hint: text,
  source,
  createdAt: '2026-07-01T00:00:00.000Z',
});
const opts = { source: DEFAULT_INJECTION_SOURCE, taskToolNames: ['TaskList'], hasUnfinishedTasks: true };

describe('scanContext', () => {
  it('finds the newest recorded time and earlier task reminders', () => {
    const context = [
      assistantMsg([hint('<current-time>old</current-time>'), hint('<tasks>x</tasks>')]),
      userMsg('hi'),
      assistantMsg([hint('<current-time>new</current-time>')]),
    ];
    expect(scanContext(context, opts)).toEqual({
      lastTimeText: '<current-time>new</current-time>',
      awareOfTasks: true,
    });
  });

  it('ignores hints from other sources', () => {
    const context = [assistantMsg([hint('<current-time>x</current-time><tasks>y</tasks>', 'someone-else')])];
    expect(scanContext(context, opts)).toEqual({ lastTimeText: null, awareOfTasks: false });
  });

  it('counts task tool calls as awareness, and no unfinished tasks as awareness', () => {
    const call = {
      type: 'tool_call' as const,
      id: 'c',
      name: 'TaskList',
      input: '{}',
      state: 'finished' as const,
    };
    expect(scanContext([assistantMsg([call])], opts).awareOfTasks).toBe(true);
    expect(scanContext([assistantMsg([{ ...call, name: 'Bash' }])], opts).awareOfTasks).toBe(false);
    expect(scanContext([], { ...opts, hasUnfinishedTasks: false }).awareOfTasks).toBe(true);
  });

  it('reads hints made of text blocks', () => {
    const blocks: HintBlock['hint'] = [
      { type: 'text', id: 'a', text: '<current-time>2026' },
      { type: 'text', id: 'b', text: '-07-01T12:00:00</current-time>' },
    ];
    expect(hintText(blocks)).toBe('<current-time>2026-07-01T12:00:00</current-time>');
    expect(scanContext([assistantMsg([hint(blocks)])], opts).lastTimeText).toBe(
      '<current-time>2026-07-01T12:00:00</current-time>',
    );
  });
});
