import { Agent, ConfigError } from '@agentkit/core';
import { ScriptedModel } from '@agentkit/core/testing';
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONTEXT_CONFIG, resolveContextConfig } from './context-config';
import { contextPlugin } from './context-plugin';
import { DEFAULT_SUMMARY_SCHEMA } from './defaults';

function fieldOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).field;
  }
  throw new Error('expected a ConfigError');
}

describe('context configuration', () => {
  it('has the reference defaults', () => {
    expect(resolveContextConfig(undefined)).toEqual({
      triggerRatio: 0.8,
      reserveRatio: 0.1,
      compressionPrompt: expect.stringContaining('continuation summary'),
      summaryTemplate: expect.stringContaining('{task_overview}'),
      summarySchema: DEFAULT_SUMMARY_SCHEMA,
      toolResultLimit: 50_000,
      maxImageNum: 5,
      contextBufferRatio: 0.2,
      compressionToolEnabled: false,
      compressionFallbackToTruncation: true,
    });
    expect((DEFAULT_SUMMARY_SCHEMA.required as string[]).length).toBe(5);
  });

  it("shares only what cannot change: the frozen defaults; a caller's schema is copied", () => {
    const a = contextPlugin();
    const b = contextPlugin();
    expect(a.config).not.toBe(b.config);
    expect(a.provides?.compression).not.toBe(b.provides?.compression);
    // Nothing to merge: the resolved defaults themselves, frozen to the schema's leaves (a plugin per
    // session copies nothing).
    expect(resolveContextConfig({})).toBe(DEFAULT_CONTEXT_CONFIG);
    expect(Object.isFrozen(DEFAULT_CONTEXT_CONFIG.summarySchema.properties)).toBe(true);
    expect(() => {
      (DEFAULT_CONTEXT_CONFIG.summarySchema as { title: string }).title = 'changed';
    }).toThrow(TypeError);
    const mine = { ...DEFAULT_CONTEXT_CONFIG.summarySchema };
    const resolved = resolveContextConfig({ summarySchema: mine });
    expect(resolved.summarySchema).toEqual(mine);
    expect(resolved.summarySchema).not.toBe(mine);
  });

  it('rejects invalid ratios at construction, naming the field', () => {
    expect(fieldOf(() => contextPlugin({ reserveRatio: 0.8 }))).toBe('reserveRatio');
    expect(fieldOf(() => contextPlugin({ triggerRatio: 0.5, reserveRatio: 0.6 }))).toBe('reserveRatio');
    expect(fieldOf(() => contextPlugin({ contextBufferRatio: 0.8 }))).toBe('contextBufferRatio');
    expect(fieldOf(() => contextPlugin({ contextBufferRatio: -0.1 }))).toBe('contextBufferRatio');
    expect(fieldOf(() => contextPlugin({ triggerRatio: 0.95 }))).toBe('triggerRatio');
    expect(fieldOf(() => contextPlugin({ triggerRatio: 0 }))).toBe('triggerRatio');
    expect(fieldOf(() => contextPlugin({ triggerRatio: Number.NaN }))).toBe('triggerRatio');
    expect(fieldOf(() => contextPlugin({ reserveRatio: 0 }))).toBe('reserveRatio');
    expect(fieldOf(() => contextPlugin({ toolResultLimit: 0 }))).toBe('toolResultLimit');
    expect(fieldOf(() => contextPlugin({ toolResultLimit: 1.5 }))).toBe('toolResultLimit');
    expect(fieldOf(() => contextPlugin({ maxImageNum: -1 }))).toBe('maxImageNum');
    expect(fieldOf(() => contextPlugin({ compressionPrompt: ' ' }))).toBe('compressionPrompt');
    expect(fieldOf(() => contextPlugin({ summarySchema: { type: 'string' } }))).toBe('summarySchema');
    expect(fieldOf(() => contextPlugin({ summaryTemplate: '{nope}' }))).toBe('summaryTemplate');
    expect(fieldOf(() => contextPlugin({ compressionToolEnabled: 'yes' as never }))).toBe(
      'compressionToolEnabled',
    );
    expect(fieldOf(() => contextPlugin({ offloader: {} as never }))).toBe('offloader');
  });

  it('checks contextBufferRatio < triggerRatio only where the buffer is used (set, or the tool enabled)', () => {
    // A low trigger with the default buffer (0.2) is valid: nothing here uses the buffer (reference: the
    // check applies with injection on, which @agentkit/injection makes itself).
    expect(contextPlugin({ triggerRatio: 0.15, reserveRatio: 0.1 }).config.triggerRatio).toBe(0.15);
    expect(
      fieldOf(() => contextPlugin({ triggerRatio: 0.15, reserveRatio: 0.1, compressionToolEnabled: true })),
    ).toBe('contextBufferRatio');
    expect(fieldOf(() => contextPlugin({ triggerRatio: 0.5, contextBufferRatio: 0.5 }))).toBe(
      'contextBufferRatio',
    );
    // A per-call configuration of a manual compression does not use the buffer either.
    const base = resolveContextConfig(undefined);
    expect(resolveContextConfig({ triggerRatio: 0.15, reserveRatio: 0.1 }, base).triggerRatio).toBe(0.15);
  });

  it('accepts the boundaries', () => {
    expect(
      resolveContextConfig({ triggerRatio: 0.9, reserveRatio: 0.89, contextBufferRatio: 0 }),
    ).toMatchObject({
      triggerRatio: 0.9,
      reserveRatio: 0.89,
      contextBufferRatio: 0,
    });
  });

  it('merges a per-call configuration over a base and validates the result', () => {
    const base = resolveContextConfig({ triggerRatio: 0.6, reserveRatio: 0.2 });
    expect(resolveContextConfig({ reserveRatio: 0.3 }, base)).toMatchObject({
      triggerRatio: 0.6,
      reserveRatio: 0.3,
    });
    expect(fieldOf(() => resolveContextConfig({ reserveRatio: 0.7 }, base))).toBe('reserveRatio');
  });

  it('rejects a model without a usable context size when the agent is built', () => {
    const model = new ScriptedModel([], { contextSize: Number.NaN });
    expect(() => new Agent({ name: 'a', model, plugins: [contextPlugin()] })).toThrow(/contextSize/);
  });

  it('mounts the CompressContext tool only when enabled', () => {
    expect(contextPlugin().tools).toBeUndefined();
    expect(contextPlugin({ compressionToolEnabled: true }).tools?.map((t) => t.name)).toEqual([
      'CompressContext',
    ]);
  });

  it('shares its thresholds through the compression capability, read at call time', () => {
    const plugin = contextPlugin({ contextBufferRatio: 0.3 });
    const capability = plugin.provides!.compression!;
    expect(capability).toEqual({ triggerRatio: 0.8, contextBufferRatio: 0.3, compressionToolEnabled: false });
    capability.contextBufferRatio = 0.1;
    expect(plugin.config.contextBufferRatio).toBe(0.1);
  });
});
