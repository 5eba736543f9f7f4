import { describe, expect, it } from 'vitest';
import { toSseMessages } from './to-sse-messages';

describe('toSseMessages', () => {
  it('writes one message per payload as JSON, with the entry id on the last one only', () => {
    expect(toSseMessages('5-0', [{ a: 1 }, 'b', [2]])).toEqual([
      { data: '{"a":1}' },
      { data: '"b"' },
      { id: '5-0', data: '[2]' },
    ]);
    expect(toSseMessages(undefined, [{ a: 1 }])).toEqual([{ data: '{"a":1}' }]);
    expect(toSseMessages('5-1', [])).toEqual([]);
  });
});
