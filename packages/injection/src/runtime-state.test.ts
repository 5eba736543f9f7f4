import { describe, expect, it } from 'vitest';
import { resolveInjectionConfig } from './injection-config';
import { type ContextUsage, collectRuntimeState } from './runtime-state';

const NOW = new Date('2026-07-01T12:00:00Z');

function fieldsWith(usage: Partial<ContextUsage>) {
  return collectRuntimeState({
    config: resolveInjectionConfig(),
    context: [],
    replyMessage: undefined,
    iteration: 0,
    now: NOW,
    tasks: { pending: 0, inProgress: 0 },
    contextUsage: () => ({
      inputTokens: 700,
      contextSize: 1000,
      triggerRatio: 0.8,
      contextBufferRatio: 0.2,
      compressionToolEnabled: false,
      ...usage,
    }),
  }).map(([key]) => key);
}

describe('collectRuntimeState: context usage', () => {
  it('reports the context length inside the buffer below the threshold', () => {
    expect(fieldsWith({})).toEqual(['current-time', 'timezone', 'context-length']);
    expect(fieldsWith({ inputTokens: 600 })).toEqual(['current-time', 'timezone']);
  });

  it('says nothing about context usage when the model reports no usable context size', () => {
    // "When reaching 0 tokens, your context will be compressed" on every reply would be nonsense.
    for (const contextSize of [0, -1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(fieldsWith({ contextSize })).toEqual(['current-time', 'timezone']);
  });
});
