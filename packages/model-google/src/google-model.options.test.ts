import { ConfigError } from '@agentkit/core';
import { describe, expect, it } from 'vitest';
import { createGoogleModel } from './google-model';

describe('createGoogleModel options', () => {
  const base = { apiKey: 'k', httpOptions: { baseUrl: 'http://127.0.0.1:9' } };

  it('takes the context size from the table unless overridden', () => {
    expect(createGoogleModel({ ...base, model: 'gemma-3-4b-it' }).contextSize).toBe(131_072);
    expect(createGoogleModel({ ...base, model: 'gemini-2.5-pro', contextSize: 200_000 }).contextSize).toBe(
      200_000,
    );
  });

  it('rejects bad options with a ConfigError naming the field', () => {
    expect(() => createGoogleModel({ ...base, model: ' ' })).toThrow(ConfigError);
    expect(() => createGoogleModel({ ...base, model: 'gemini-2.5-pro', contextSize: 0 })).toThrow(
      /contextSize/,
    );
    try {
      createGoogleModel({ ...base, model: 'gemini-2.5-pro', thinking: { thinkingBudget: 1.5 } });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).field).toBe('thinking.thinkingBudget');
    }
  });

  it('fills missing signatures by default for Gemini 3 models only', () => {
    const request = {
      systemPrompt: '',
      messages: [
        {
          id: 'm',
          name: 'a',
          role: 'assistant' as const,
          content: [
            { type: 'tool_call' as const, id: 'x', name: 't', input: '{}', state: 'finished' as const },
          ],
          metadata: {},
          createdAt: '',
          usage: null,
          finishedAt: null,
          finishedReason: null,
          structuredOutput: null,
          error: null,
        },
      ],
      tools: [],
      toolChoice: 'auto' as const,
      signal: new AbortController().signal,
    };
    const partsOf = (model: string) =>
      (createGoogleModel({ ...base, model }).toParameters(request).contents as any)[0].parts[0];
    expect(partsOf('gemini-3-pro-preview').thoughtSignature).toBe('skip_thought_signature_validator');
    expect(partsOf('gemini-2.5-pro').thoughtSignature).toBeUndefined();
  });
});
