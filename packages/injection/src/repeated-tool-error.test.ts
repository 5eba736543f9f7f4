import { assistantMsg, type ContentBlock, type Msg } from '@agentkit/core';
import { describe, expect, it } from 'vitest';
import { findRepeatedToolError, normalizeToolArguments } from './repeated-tool-error';

let n = 0;
/** A call and its result, as the reply loop stores them. */
function round(name: string, input: string, state: 'success' | 'error'): ContentBlock[] {
  const id = `call_${++n}`;
  return [
    { type: 'tool_call', id, name, input, state: 'finished' },
    {
      type: 'tool_result',
      id,
      name,
      output: [{ type: 'text', id: `t${n}`, text: state }],
      state,
      metadata: {},
    },
  ];
}
const reply = (...rounds: ContentBlock[][]): Msg => assistantMsg(rounds.flat(), { name: 'Friday' });

describe('findRepeatedToolError', () => {
  it('case 12: three identical failures → (echo, 3)', () => {
    const msg = reply(...Array.from({ length: 3 }, () => round('echo', '{"text": "hi"}', 'error')));
    expect(findRepeatedToolError(msg, 3)).toEqual({ toolName: 'echo', count: 3 });
  });

  it('case 13: reordered keys and different whitespace still match', () => {
    const msg = reply(
      round('echo', '{"a": 1, "b": {"x": [1, 2], "y": null}}', 'error'),
      round('echo', '{"b":{"y":null,"x":[1,2]},"a":1}', 'error'),
      round('echo', '{\n  "b": { "x": [1, 2], "y": null },\n  "a": 1\n}', 'error'),
    );
    expect(findRepeatedToolError(msg, 3)).toEqual({ toolName: 'echo', count: 3 });
  });

  it('case 14: two failures → none', () => {
    const msg = reply(round('echo', '{}', 'error'), round('echo', '{}', 'error'));
    expect(findRepeatedToolError(msg, 3)).toBeNull();
  });

  it('case 15: a trailing success → none', () => {
    const msg = reply(
      ...Array.from({ length: 3 }, () => round('echo', '{}', 'error')),
      round('echo', '{}', 'success'),
    );
    expect(findRepeatedToolError(msg, 3)).toBeNull();
  });

  it('case 16: invalid-JSON arguments are compared trimmed', () => {
    const msg = reply(
      round('echo', '{not json', 'error'),
      round('echo', '  {not json\n', 'error'),
      round('echo', '{not json ', 'error'),
    );
    expect(findRepeatedToolError(msg, 3)).toEqual({ toolName: 'echo', count: 3 });
    const other = reply(
      round('echo', '{not json', 'error'),
      round('echo', '{not  json', 'error'),
      round('echo', '{not json', 'error'),
    );
    expect(findRepeatedToolError(other, 3)).toBeNull();
  });

  it('a success or another tool inside the run resets the streak; the count keeps growing', () => {
    const fail = () => round('echo', '{"x":1}', 'error');
    expect(
      findRepeatedToolError(reply(fail(), fail(), round('echo', '{"x":1}', 'success'), fail(), fail()), 3),
    ).toBeNull();
    expect(
      findRepeatedToolError(reply(fail(), fail(), round('Bash', '{"x":1}', 'error'), fail(), fail()), 3),
    ).toBeNull();
    expect(findRepeatedToolError(reply(...Array.from({ length: 8 }, fail)), 3)).toEqual({
      toolName: 'echo',
      count: 8,
    });
  });

  it('counts only the newest calls that share the newest arguments', () => {
    const msg = reply(
      round('echo', '{"x":1}', 'error'),
      round('echo', '{"x":2}', 'error'),
      round('echo', '{"x":2}', 'error'),
      round('echo', '{"x":2}', 'error'),
    );
    expect(findRepeatedToolError(msg, 3)).toEqual({ toolName: 'echo', count: 3 });
    expect(findRepeatedToolError(msg, 4)).toBeNull();
    const mixed = reply(
      round('echo', '{"x":2}', 'error'),
      round('echo', '{"x":1}', 'error'),
      round('echo', '{"x":2}', 'error'),
    );
    expect(findRepeatedToolError(mixed, 3)).toBeNull();
  });

  it('ignores denied or interrupted results at the end and a missing message', () => {
    const denied = round('echo', '{}', 'error');
    (denied[1] as { state: string }).state = 'denied';
    expect(
      findRepeatedToolError(
        reply(
          round('echo', '{}', 'error'),
          round('echo', '{}', 'error'),
          round('echo', '{}', 'error'),
          denied,
        ),
        3,
      ),
    ).toBeNull();
    expect(findRepeatedToolError(undefined, 3)).toBeNull();
  });
});

describe('normalizeToolArguments', () => {
  it('sorts keys and drops whitespace; trims what is not JSON', () => {
    expect(normalizeToolArguments('{ "b": 1, "a": [ {"d": 2, "c": 3} ] }')).toBe(
      '{"a":[{"c":3,"d":2}],"b":1}',
    );
    expect(normalizeToolArguments('  nope  ')).toBe('nope');
    expect(normalizeToolArguments(undefined)).toBe('');
    expect(normalizeToolArguments('"x"')).toBe('"x"');
  });
});
