import { Agent, ConfigError, definePlugin, type HintBlockEvent } from '@agentkit/core';
import { ScriptedModel, textChunks } from '@agentkit/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CONTEXT_BUFFER_RATIO_DEPRECATION_CODE } from './deprecation';
import { injection } from './injection-plugin';

// Kept in its own file: the warning is emitted once per process (per test file under vitest).

const NOW = () => new Date('2026-07-01T12:00:00Z');
const warnings: Error[] = [];
const onWarning = (w: Error) => warnings.push(w);
beforeEach(() => {
  process.on('warning', onWarning);
});
afterEach(() => {
  process.off('warning', onWarning);
});
const flush = () => new Promise((r) => setImmediate(r));

function compression() {
  const capability = { triggerRatio: 0.8, contextBufferRatio: 0.2, compressionToolEnabled: false };
  return {
    capability,
    plugin: definePlugin({ name: 'fake-compression', provides: { compression: capability } }),
  };
}

async function contextLengthHints(agent: Agent): Promise<string[]> {
  const hints: string[] = [];
  for await (const e of agent.replyStream('hi'))
    if ((e as HintBlockEvent).type === 'HINT_BLOCK') hints.push(String((e as HintBlockEvent).hint));
  return hints.filter((h) => h.includes('<context-length>'));
}

const model = (tokens: number) =>
  new ScriptedModel([textChunks('ok')], {
    contextSize: 1000,
    countTokens: (i) => (i.messages.length === 0 ? tokens : 0),
  });

describe('deprecated contextBufferRatio on the injection config', () => {
  it('emits one DeprecationWarning per process', async () => {
    injection({ contextBufferRatio: 0.5 });
    injection({ contextBufferRatio: 0.4 });
    injection();
    await flush();
    const ours = warnings.filter(
      (w) => (w as NodeJS.ErrnoException).code === CONTEXT_BUFFER_RATIO_DEPRECATION_CODE,
    );
    expect(ours).toHaveLength(1);
    expect(ours[0]!.name).toBe('DeprecationWarning');
    expect(ours[0]!.message).toContain('contextBufferRatio');
  });

  it("overrides the compression capability's value, which the injection then uses", async () => {
    const { capability, plugin } = compression();
    // 350 tokens: outside the default buffer (> 600) but inside 0.8 - 0.5 = 0.3 → > 300.
    const agent = new Agent({
      name: 'a',
      model: model(350),
      plugins: [plugin, injection({ contextBufferRatio: 0.5, now: NOW })],
    });
    expect(capability.contextBufferRatio).toBe(0.5);
    expect(await contextLengthHints(agent)).toHaveLength(1);
    const plain = new Agent({
      name: 'a',
      model: model(350),
      plugins: [compression().plugin, injection({ now: NOW })],
    });
    expect(await contextLengthHints(plain)).toEqual([]);
  });

  it('is used locally without a compression plugin', async () => {
    const agent = new Agent({
      name: 'a',
      model: model(350),
      plugins: [injection({ contextBufferRatio: 0.5, now: NOW })],
    });
    expect(await contextLengthHints(agent)).toHaveLength(1);
  });

  it('must stay below the trigger ratio (checked when the agent is built)', () => {
    const build = () =>
      new Agent({
        name: 'a',
        model: model(0),
        plugins: [compression().plugin, injection({ contextBufferRatio: 0.8 })],
      });
    expect(build).toThrow(ConfigError);
    expect(build).toThrow(
      /'injection.contextBufferRatio' \(0.8\) must be smaller than the compression trigger ratio \(0.8\)/,
    );
    try {
      build();
    } catch (error) {
      expect((error as ConfigError).field).toBe('injection.contextBufferRatio');
    }
    // Without the injection switched on, the ratio does not matter.
    expect(
      () =>
        new Agent({
          name: 'a',
          model: model(0),
          plugins: [injection({ contextBufferRatio: 0.9, injectRuntimeState: false })],
        }),
    ).not.toThrow();
  });
});
