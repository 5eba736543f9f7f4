import { describe, expect, it } from 'vitest';
import { DEFAULT_CONTEXT_SIZE, contextSizeFor } from './context-size';
import { createOpenAIModel } from './openai-model';

describe('contextSizeFor', () => {
  it('matches the longest known prefix, ignoring path prefixes and case', () => {
    expect(contextSizeFor('gpt-4o-mini-2024-07-18')).toBe(128_000);
    expect(contextSizeFor('gpt-4.1-mini')).toBe(1_047_576);
    expect(contextSizeFor('o1-mini')).toBe(128_000);
    expect(contextSizeFor('o1-2024-12-17')).toBe(200_000);
    expect(contextSizeFor('openai/GPT-5-mini')).toBe(400_000);
    expect(contextSizeFor('my-local-model')).toBe(DEFAULT_CONTEXT_SIZE);
  });

  it('is overridable per model, and bad options are config errors', () => {
    expect(createOpenAIModel({ model: 'gpt-4o', apiKey: 'k', contextSize: 8192 }).contextSize).toBe(8192);
    expect(createOpenAIModel({ model: 'gpt-4o', apiKey: 'k' }).contextSize).toBe(128_000);
    expect(() => createOpenAIModel({ model: 'gpt-4o', apiKey: 'k', contextSize: -1 })).toThrow(/contextSize/);
    expect(() => createOpenAIModel({ model: '', apiKey: 'k' })).toThrow(/model name/);
    expect(() => createOpenAIModel({ model: 'gpt-4o', apiKey: 'k', api: 'completions' as 'chat' })).toThrow(
      /Unknown api/,
    );
  });
});
