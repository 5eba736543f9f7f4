import { describe, expect, it } from 'vitest';
import { MessageValidationError } from './errors/input-errors';
import { assistantMsg, createMsg, getBlocks, getText, systemMsg, userMsg } from './msg';

describe('messages', () => {
  it('should enforce the role rules with a clear error', () => {
    for (const type of ['thinking', 'hint', 'tool_call', 'tool_result'] as const) {
      const block = { type, id: 'x' } as never;
      expect(() => createMsg({ role: 'user', content: [block] })).toThrow(MessageValidationError);
      expect(() => createMsg({ role: 'user', content: [block] })).toThrow(
        `A user message cannot contain a '${type}' block`,
      );
    }
    for (const type of ['data', 'thinking', 'hint'] as const)
      expect(() => createMsg({ role: 'system', content: [{ type, id: 'x' } as never] })).toThrow(
        /system message cannot contain/,
      );
    expect(() => createMsg({ role: 'bot' as never, content: [] })).toThrow(/Unknown role/);
    expect(assistantMsg([{ type: 'thinking', id: 't', thinking: 'x' }]).role).toBe('assistant');
  });

  it('should read text or null', () => {
    expect(getText(userMsg('a'))).toBe('a');
    expect(
      getText(
        createMsg({
          role: 'user',
          content: [
            { type: 'text', id: '1', text: 'a' },
            { type: 'text', id: '2', text: 'b' },
          ],
        }),
        ' ',
      ),
    ).toBe('a b');
    expect(getText(assistantMsg([{ type: 'thinking', id: 't', thinking: 'x' }]))).toBeNull();
    expect(getBlocks(assistantMsg([{ type: 'thinking', id: 't', thinking: 'x' }]), 'thinking')).toHaveLength(
      1,
    );
  });

  it('should default finishedAt to createdAt for user and system messages, null for assistant', () => {
    const u = userMsg('x');
    expect(u.finishedAt).toBe(u.createdAt);
    const s = systemMsg('s');
    expect(s.finishedAt).toBe(s.createdAt);
    expect(assistantMsg('x').finishedAt).toBeNull();
  });
});
