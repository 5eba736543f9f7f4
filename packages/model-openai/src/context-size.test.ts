import { describe, expect, it } from 'vitest';
import { DEFAULT_CONTEXT_SIZE, contextSizeFor } from './context-size';

describe('contextSizeFor', () => {
  it('matches the longest known prefix, ignoring path prefixes and case', () => {
    expect(contextSizeFor('gpt-4o-mini-2024-07-18')).toBe(128_000);
    expect(contextSizeFor('gpt-4.1-mini')).toBe(1_047_576);
    expect(contextSizeFor('o1-mini')).toBe(128_000);
    expect(contextSizeFor('o1-2024-12-17')).toBe(200_000);
    expect(contextSizeFor('openai/GPT-5-mini')).toBe(400_000);
    expect(contextSizeFor('my-local-model')).toBe(DEFAULT_CONTEXT_SIZE);
  });
});
