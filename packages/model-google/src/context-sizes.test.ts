import { describe, expect, it } from 'vitest';
import { DEFAULT_GEMINI_CONTEXT_SIZE, geminiContextSize } from './context-sizes';

describe('geminiContextSize', () => {
  it('uses the longest matching prefix and ignores resource paths', () => {
    expect(geminiContextSize('gemini-1.5-pro-002')).toBe(2_097_152);
    expect(geminiContextSize('models/gemini-2.5-flash')).toBe(1_048_576);
    expect(geminiContextSize('publishers/google/models/gemma-3n-e4b-it')).toBe(32_768);
    expect(geminiContextSize('gemma-3-27b-it')).toBe(131_072);
    expect(geminiContextSize('some-tuned-model')).toBe(DEFAULT_GEMINI_CONTEXT_SIZE);
  });
});
