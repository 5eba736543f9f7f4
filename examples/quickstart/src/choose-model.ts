import type { ChatModel } from '@agentkit/core';
import { createGoogleModel } from '@agentkit/model-google';
import { createOpenAIModel } from '@agentkit/model-openai';
import { scriptedDemoModel } from './scripted-demo-model';

/** The model the demo runs with, and a line saying which one and why. */
export interface ModelChoice {
  model: ChatModel;
  provider: 'openai' | 'google' | 'scripted';
  description: string;
}

/** The OpenAI model when `OPENAI_MODEL` is not set. */
export const DEFAULT_OPENAI_MODEL = 'gpt-4.1-mini';
/** The Gemini model when `GEMINI_MODEL` is not set. */
export const DEFAULT_GEMINI_MODEL = 'gemini-2.5-flash';

/**
 * Picks the model from the environment: OpenAI when `OPENAI_API_KEY` is set (`OPENAI_BASE_URL` and
 * `OPENAI_MODEL` respected, so a local OpenAI-compatible server works too), Gemini when `GEMINI_API_KEY`
 * or `GOOGLE_API_KEY` is set (`GEMINI_MODEL`), else the scripted model. Builds clients only; nothing
 * is sent until the agent replies.
 */
export function chooseModel(
  env: NodeJS.ProcessEnv = process.env,
  options: { delayMs?: number } = {},
): ModelChoice {
  const set = (name: string) => (env[name] ?? '').trim() !== '';
  if (set('OPENAI_API_KEY')) {
    const name = env.OPENAI_MODEL?.trim() || DEFAULT_OPENAI_MODEL;
    const baseURL = env.OPENAI_BASE_URL?.trim() || undefined;
    return {
      model: createOpenAIModel({
        model: name,
        apiKey: env.OPENAI_API_KEY!.trim(),
        ...(baseURL ? { baseURL } : {}),
      }),
      provider: 'openai',
      description: `OPENAI_API_KEY is set: using OpenAI model '${name}'${baseURL ? ` at ${baseURL}` : ''}`,
    };
  }
  const geminiKeyName = set('GEMINI_API_KEY')
    ? 'GEMINI_API_KEY'
    : set('GOOGLE_API_KEY')
      ? 'GOOGLE_API_KEY'
      : undefined;
  if (geminiKeyName) {
    const name = env.GEMINI_MODEL?.trim() || DEFAULT_GEMINI_MODEL;
    return {
      model: createGoogleModel({ model: name, apiKey: env[geminiKeyName]!.trim() }),
      provider: 'google',
      description: `${geminiKeyName} is set: using Gemini model '${name}'`,
    };
  }
  return {
    model: scriptedDemoModel(options),
    provider: 'scripted',
    description:
      'no API key set: using the scripted model (set OPENAI_API_KEY or GEMINI_API_KEY for a real one)',
  };
}
