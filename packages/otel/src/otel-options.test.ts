import { ConfigError } from '@agentkit/core';
import { describe, expect, it } from 'vitest';
import { otel } from './otel-plugin';

const configError = (field: string) =>
  expect.objectContaining({ name: 'ConfigError', code: 'CONFIG', field });

describe('otel() options', () => {
  it('accepts no options, and every option with a valid value', () => {
    expect(otel().name).toBe('@agentkit/otel');
    expect(() =>
      otel({
        tracerProvider: { getTracer: () => ({}) as never },
        meterProvider: { getMeter: () => ({}) as never },
        provider: 'openai',
        captureContent: true,
        latestExperimental: false,
        resume: 'parent',
      }),
    ).not.toThrow();
  });

  it('rejects what it cannot use with a ConfigError naming the option', () => {
    const cases: Array<[unknown, string]> = [
      [null, 'otel.options'],
      [['x'], 'otel.options'],
      [{ captureContents: true }, 'otel.captureContents'],
      [{ captureContent: 'yes' }, 'otel.captureContent'],
      [{ latestExperimental: 1 }, 'otel.latestExperimental'],
      [{ resume: 'child' }, 'otel.resume'],
      [{ provider: '' }, 'otel.provider'],
      [{ provider: 7 }, 'otel.provider'],
      [{ tracerProvider: {} }, 'otel.tracerProvider'],
      [{ meterProvider: 'global' }, 'otel.meterProvider'],
    ];
    for (const [options, field] of cases) {
      expect(() => otel(options as never)).toThrow(ConfigError);
      expect(() => otel(options as never)).toThrow(configError(field));
    }
  });
});
