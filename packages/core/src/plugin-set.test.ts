import { describe, expect, it } from 'vitest';
import { Agent } from './agent';
import { ConfigError } from './errors/config-error';
import { toLogger } from './logger';
import type { Plugin } from './plugin';
import { pluginSet } from './plugin-set';
import { ScriptedModel, textChunks } from './testing/scripted-model';

describe('pluginSet', () => {
  const a: Plugin = { name: 'a', hooks: { beforeInference: () => {} } };
  const b: Plugin = { name: 'b', enforce: 'pre', hooks: { beforeInference: () => {}, onReplyEnd: () => {} } };

  it('is made once for the same plugin instances and shared by the agents built with them', () => {
    const first = pluginSet([a, b]);
    expect(pluginSet([a, b])).toBe(first);
    expect(pluginSet([b, a])).not.toBe(first);
    expect(first.handlers.get('beforeInference')?.map((h) => h.plugin.name)).toEqual(['b', 'a']);
    expect(first.names).toEqual(['a', 'b']);
  });

  it('is made again for a plugin whose fields were replaced', () => {
    const c: Plugin = { name: 'c', hooks: { beforeInference: () => {} } };
    const before = pluginSet([c]);
    (c as { hooks: Plugin['hooks'] }).hooks = { afterTool: () => {} };
    const after = pluginSet([c]);
    expect(after).not.toBe(before);
    expect([...after.handlers.keys()]).toEqual(['afterTool']);
  });

  it('checks every list it has not seen, and never caches a failure', () => {
    expect(() => pluginSet([a, { name: 'a' }])).toThrow(ConfigError);
    expect(() => pluginSet([a, { name: 'a' }])).toThrow(/installed twice/);
    expect(() => pluginSet([{ name: 'x', dependencies: ['y'] }])).toThrow(/needs plugin 'y'/);
  });

  it('agents sharing plugin instances each run their own replies, hooks in order', async () => {
    const seen: string[] = [];
    const p: Plugin = {
      name: 'p',
      hooks: { beforeInference: ({ ctx }) => void seen.push(ctx.agentName) },
    };
    const make = (name: string) =>
      new Agent({ name, model: new ScriptedModel([textChunks(`hi from ${name}`)]), plugins: [p] });
    const [x, y] = [make('x'), make('y')];
    await Promise.all([x.reply('go'), y.reply('go')]);
    expect(seen.sort()).toEqual(['x', 'y']);
  });
});

describe('toLogger', () => {
  it('forwards the levels a logger has, with the logger as this, and drops the others', () => {
    const lines: string[] = [];
    const mine = {
      prefix: '>',
      warn(this: { prefix: string }, m: string) {
        lines.push(`${this.prefix} ${m}`);
      },
      error() {},
    };
    const logger = toLogger(mine);
    logger.warn('careful');
    logger.debug('dropped');
    logger.info('dropped');
    expect(lines).toEqual(['> careful']);
    // No logger: one console logger shared by every agent.
    expect(toLogger(undefined)).toBe(toLogger(undefined));
  });
});
