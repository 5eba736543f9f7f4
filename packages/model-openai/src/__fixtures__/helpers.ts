import { type ChatModel, type ModelChunk, type ModelRequest, userMsg } from '@agentkit/core';

/** A model request with defaults: one user message, no tools. */
export function modelRequest(partial: Partial<ModelRequest> = {}): ModelRequest {
  return {
    systemPrompt: 'You are helpful.',
    messages: [userMsg('Hi')],
    tools: [],
    toolChoice: 'auto',
    signal: new AbortController().signal,
    ...partial,
  };
}

/** Collects every chunk of a stream. */
export async function collect(model: ChatModel, request: ModelRequest): Promise<ModelChunk[]> {
  const out: ModelChunk[] = [];
  for await (const chunk of model.stream(request)) out.push(chunk);
  return out;
}

/** Collects a stream and returns the error it threw (fails when it does not throw). */
export async function collectError(
  model: ChatModel,
  request: ModelRequest,
): Promise<{ chunks: ModelChunk[]; error: unknown }> {
  const chunks: ModelChunk[] = [];
  try {
    for await (const chunk of model.stream(request)) chunks.push(chunk);
  } catch (error) {
    return { chunks, error };
  }
  throw new Error('The stream did not throw.');
}

/** Joins tool-call deltas per id: `{ id: { name, input } }`. */
export function toolCalls(chunks: ModelChunk[]): Record<string, { name: string | undefined; input: string }> {
  const out: Record<string, { name: string | undefined; input: string }> = {};
  for (const c of chunks) {
    if (c.type !== 'tool_call') continue;
    const call = (out[c.id] ??= { name: c.name, input: '' });
    call.input += c.delta;
  }
  return out;
}

/** The joined deltas of one chunk type. */
export function joined(chunks: ModelChunk[], type: 'text' | 'thinking'): string {
  return chunks.map((c) => (c.type === type ? c.delta : '')).join('');
}
