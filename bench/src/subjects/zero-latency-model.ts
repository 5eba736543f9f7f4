import type { ChatModel, ModelChunk, ModelRequest } from '@agentkit/core';
import { normalizeUsage } from '@agentkit/core/model';
import type { Step } from '../workload';

/** Chunks of one scripted step. */
export function stepChunks(step: Step): ModelChunk[] {
  const usageChunk: ModelChunk = {
    type: 'usage',
    usage: normalizeUsage({ inputTokens: 10, outputTokens: 5 }),
  };
  if (step.kind === 'tool')
    return [
      { type: 'tool_call', id: step.id, name: 'add', delta: JSON.stringify({ a: step.a, b: step.b }) },
      usageChunk,
    ];
  return [{ type: 'text', delta: step.text }, usageChunk];
}

/**
 * A minimal zero-latency agentkit `ChatModel`: plays the next step of a script. Unlike `ScriptedModel`
 * it does not record (deep-copy) every request, so it measures the kernel and not the test double —
 * the same as the peers' mocks, which keep a reference to the request at most.
 */
export class ZeroLatencyModel implements ChatModel {
  readonly name = 'zero-latency';
  readonly contextSize: number;
  constructor(
    private readonly next: (request: ModelRequest) => ModelChunk[],
    contextSize = 1_000_000,
  ) {
    this.contextSize = contextSize;
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelChunk> {
    for (const chunk of this.next(request)) yield chunk;
  }
}
