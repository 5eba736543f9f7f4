import type { ChatModel } from '@agentkit/core';
import { describe, expect, it } from 'vitest';
import { providerName } from './provider-name';

const model = (name: string, extra: object = {}): ChatModel => ({
  name,
  contextSize: 1000,
  async *stream() {},
  ...extra,
});

describe('providerName', () => {
  it("uses the model's own provider when the adapter states one", () => {
    expect(providerName(model('gpt-5-mini', { provider: 'azure.ai.openai' }))).toBe('azure.ai.openai');
  });

  it('recognises the well-known model families', () => {
    expect(providerName(model('gpt-5-mini'))).toBe('openai');
    expect(providerName(model('o3'))).toBe('openai');
    expect(providerName(model('o4-mini'))).toBe('openai');
    expect(providerName(model('gemini-2.5-flash'))).toBe('gcp.gen_ai');
    expect(providerName(model('models/gemini-2.5-pro'))).toBe('gcp.gen_ai');
    expect(providerName(model('Claude-Sonnet-4-5'))).toBe('anthropic');
    expect(providerName(model('mistral-large-latest'))).toBe('mistral_ai');
    expect(providerName(model('deepseek-chat'))).toBe('deepseek');
    expect(providerName(model('grok-4'))).toBe('x_ai');
  });

  it("says 'unknown' for anything else (and ignores an empty or non-string provider)", () => {
    expect(providerName(model('llama3.1:8b'))).toBe('unknown');
    expect(providerName(model('scripted-model', { provider: '' }))).toBe('unknown');
    expect(providerName(model('omni', { provider: 42 }))).toBe('unknown');
  });
});
