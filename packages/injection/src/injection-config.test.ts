import { ConfigError } from '@agentkit/core';
import { describe, expect, it } from 'vitest';
import { type InjectionConfig, resolveInjectionConfig } from './injection-config';
import { DEFAULT_INJECTION_SOURCE, DEFAULT_TEMPLATE, DEFAULT_TOOL_RETRIES_HINT } from './texts';

function fieldOf(config: unknown): string | undefined {
  try {
    resolveInjectionConfig(config as InjectionConfig);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).field;
  }
  return undefined;
}

describe('resolveInjectionConfig', () => {
  it("applies the seed's defaults", () => {
    const c = resolveInjectionConfig();
    expect(c).toMatchObject({
      injectRuntimeState: true,
      timezone: 'UTC',
      timeFormat: '%Y-%m-%dT%H:%M:%S',
      timeInterval: 0.5,
      toolRetriesLimit: 3,
      toolRetriesHint: DEFAULT_TOOL_RETRIES_HINT,
      template: DEFAULT_TEMPLATE,
      injectionSource: DEFAULT_INJECTION_SOURCE,
      taskToolNames: undefined,
      extraFields: {},
      emitHintEvent: true,
      contextBufferRatio: undefined,
    });
    expect(DEFAULT_INJECTION_SOURCE).toBe('{"label": "System", "sublabel": "Runtime State"}');
    expect(DEFAULT_TOOL_RETRIES_HINT).toBe(
      "The last {count} calls to '{tool_name}' with the same arguments all failed. Stop retrying the same call as-is, check the error message and try a different approach.",
    );
    expect(DEFAULT_TEMPLATE).toBe(
      '<system-reminder>Treat the following as the ground truth at this point of the conversation. Anything stated earlier is outdated, and a later reminder, if any, supersedes this one:\n{runtime_state}\n</system-reminder>',
    );
  });

  it('case 9: a template without {runtime_state} is rejected', () => {
    expect(() => resolveInjectionConfig({ template: '<system-reminder></system-reminder>' })).toThrow(
      "'template' must contain the '{runtime_state}' placeholder",
    );
    expect(fieldOf({ template: '<system-reminder></system-reminder>' })).toBe('injection.template');
  });

  it('names the field of every invalid value', () => {
    expect(fieldOf({ timeFormat: '%H:%M' })).toBe('injection.timeFormat');
    expect(fieldOf({ timeFormat: '%Y-%m-%d %Q' })).toBe('injection.timeFormat');
    expect(fieldOf({ timeInterval: -1 })).toBe('injection.timeInterval');
    expect(fieldOf({ timeInterval: Number.NaN })).toBe('injection.timeInterval');
    expect(fieldOf({ toolRetriesLimit: 2 })).toBe('injection.toolRetriesLimit');
    expect(fieldOf({ toolRetriesLimit: 3.5 })).toBe('injection.toolRetriesLimit');
    expect(fieldOf({ timezone: ' ' })).toBe('injection.timezone');
    expect(fieldOf({ timezone: 8 })).toBe('injection.timezone');
    expect(fieldOf({ injectRuntimeState: 'yes' })).toBe('injection.injectRuntimeState');
    expect(fieldOf({ extraFields: { 'bad key': 'x' } })).toBe('injection.extraFields.bad key');
    expect(fieldOf({ extraFields: { ok: 3 } })).toBe('injection.extraFields.ok');
    expect(fieldOf({ taskToolNames: 'TaskList' })).toBe('injection.taskToolNames');
    expect(fieldOf({ contextBufferRatio: 1.5 })).toBe('injection.contextBufferRatio');
    expect(fieldOf({ time_interval: 1 })).toBe('injection.time_interval');
    expect(fieldOf(null)).toBe('injection');
  });

  it('accepts injectionSource as the {label, sublabel} object the seed shows, stored as the reference string', () => {
    expect(
      resolveInjectionConfig({ injectionSource: { label: 'System', sublabel: 'Runtime State' } })
        .injectionSource,
    ).toBe(DEFAULT_INJECTION_SOURCE);
    expect(resolveInjectionConfig({ injectionSource: { label: 'Ops' } }).injectionSource).toBe(
      '{"label": "Ops"}',
    );
    expect(resolveInjectionConfig({ injectionSource: 'custom' }).injectionSource).toBe('custom');
    expect(fieldOf({ injectionSource: { label: 3 } })).toBe('injection.injectionSource');
    expect(fieldOf({ injectionSource: { label: 'a', extra: 'b' } })).toBe('injection.injectionSource');
    expect(fieldOf({ injectionSource: null })).toBe('injection.injectionSource');
  });

  it('accepts valid custom values, including an unknown timezone (warned about later)', () => {
    const c = resolveInjectionConfig({
      timezone: 'Mars/Olympus_Mons',
      timeFormat: '%d %b %Y %I:%M %p',
      timeInterval: 0,
      toolRetriesLimit: 5,
      extraFields: { 'battery-level': '78%' },
      taskToolNames: ['Todo'],
    });
    expect(c).toMatchObject({ timezone: 'Mars/Olympus_Mons', toolRetriesLimit: 5, taskToolNames: ['Todo'] });
  });
});
