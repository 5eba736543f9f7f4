import { describe, expect, it } from 'vitest';
import { chooseModel } from './choose-model';

describe('chooseModel', () => {
  it('should use the scripted model without an API key, and say so', () => {
    const choice = chooseModel({ OPENAI_API_KEY: '  ' });
    expect(choice.provider).toBe('scripted');
    expect(choice.model.name).toBe('scripted-model');
    expect(choice.description).toMatch(/^no API key set: using the scripted model/);
  });

  it('should prefer OpenAI and respect OPENAI_MODEL and OPENAI_BASE_URL', () => {
    const choice = chooseModel({
      OPENAI_API_KEY: 'sk-test',
      OPENAI_MODEL: 'qwen3:8b',
      OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      GEMINI_API_KEY: 'g-test',
    });
    expect(choice.provider).toBe('openai');
    expect(choice.model.name).toBe('qwen3:8b');
    expect(choice.description).toBe(
      "OPENAI_API_KEY is set: using OpenAI model 'qwen3:8b' at http://127.0.0.1:11434/v1",
    );
    expect(choice.description).not.toContain('sk-test');
  });

  it('should use Gemini with GEMINI_API_KEY or GOOGLE_API_KEY, and GEMINI_MODEL', () => {
    expect(chooseModel({ GOOGLE_API_KEY: 'g-test' })).toMatchObject({
      provider: 'google',
      description: "GOOGLE_API_KEY is set: using Gemini model 'gemini-2.5-flash'",
    });
    const choice = chooseModel({ GEMINI_API_KEY: 'g-test', GEMINI_MODEL: 'gemini-2.5-pro' });
    expect(choice.model.name).toBe('gemini-2.5-pro');
  });
});
