import { describe, expect, it } from 'vitest';
import { createOpenAIModel } from './openai-model';

describe('createOpenAIModel options', () => {
  it('takes contextSize as an override; bad options are config errors', () => {
    expect(createOpenAIModel({ model: 'gpt-4o', apiKey: 'k', contextSize: 8192 }).contextSize).toBe(8192);
    expect(createOpenAIModel({ model: 'gpt-4o', apiKey: 'k' }).contextSize).toBe(128_000);
    expect(() => createOpenAIModel({ model: 'gpt-4o', apiKey: 'k', contextSize: -1 })).toThrow(/contextSize/);
    expect(() => createOpenAIModel({ model: '', apiKey: 'k' })).toThrow(/model name/);
    expect(() => createOpenAIModel({ model: 'gpt-4o', apiKey: 'k', api: 'completions' as 'chat' })).toThrow(
      /Unknown api/,
    );
  });

  const request = {
    systemPrompt: '',
    messages: [],
    tools: [{ name: 'f', description: 'F', inputSchema: { type: 'object' } }],
    toolChoice: 'auto' as const,
    signal: new AbortController().signal,
  };

  it('maps reasoning, limits and extra body fields onto Chat params', () => {
    const model = createOpenAIModel({
      model: 'qwen-plus',
      apiKey: 'k',
      reasoning: { effort: 'low' },
      maxOutputTokens: 512,
      temperature: 0.2,
      parallelToolCalls: false,
      extraBody: { enable_thinking: true },
    });
    expect(model.chatParams(request)).toMatchObject({
      reasoning_effort: 'low',
      max_completion_tokens: 512,
      temperature: 0.2,
      parallel_tool_calls: false,
      enable_thinking: true,
      tool_choice: 'auto',
    });
    expect(model.chatParams(request).messages).toEqual([]);
  });

  it('asks Responses for encrypted reasoning only for reasoning models without store', () => {
    const params = (o: Partial<Parameters<typeof createOpenAIModel>[0]>) =>
      createOpenAIModel({ model: 'gpt-4.1', apiKey: 'k', api: 'responses', ...o }).responsesParams(request);
    expect(params({}).include).toBeUndefined();
    expect(params({ model: 'gpt-5-mini' }).include).toEqual(['reasoning.encrypted_content']);
    expect(params({ model: 'gpt-5-mini', store: true }).include).toBeUndefined();
    expect(params({ reasoning: { effort: 'high', summary: 'auto' } })).toMatchObject({
      reasoning: { effort: 'high', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
    });
    expect(params({ maxOutputTokens: 100 }).max_output_tokens).toBe(100);
  });

  it('needs a key unless a baseURL is given', () => {
    const saved = { key: process.env.OPENAI_API_KEY, url: process.env.OPENAI_BASE_URL };
    delete process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_BASE_URL;
    try {
      expect(() => createOpenAIModel({ model: 'gpt-4o' })).toThrow(/OPENAI_API_KEY/);
      const local = createOpenAIModel({ model: 'llama3.1', baseURL: 'http://127.0.0.1:11434/v1' });
      expect(local.client.baseURL).toBe('http://127.0.0.1:11434/v1');
      expect(local.client.maxRetries).toBe(0);
      expect(local.contextSize).toBe(131_072);
    } finally {
      if (saved.key !== undefined) process.env.OPENAI_API_KEY = saved.key;
      if (saved.url !== undefined) process.env.OPENAI_BASE_URL = saved.url;
    }
  });
});
