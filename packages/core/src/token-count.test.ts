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
