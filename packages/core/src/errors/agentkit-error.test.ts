import { describe, expect, it, vi } from 'vitest';
import { AgentkitError } from './agentkit-error';
import { ConfigError } from './config-error';
import { StateError } from './state-error';
import { SessionNotFoundError, VersionConflictError } from './store-errors';

const key = { userId: 'u', agentId: 'a', sessionId: 's' };

describe('isInstance', () => {
  it('answers for its own class and its subclasses only', () => {
    const conflict = new VersionConflictError(key, 1, 2);
    expect(VersionConflictError.isInstance(conflict)).toBe(true);
    expect(AgentkitError.isInstance(conflict)).toBe(true);
    expect(VersionConflictError.isInstance(new ConfigError('bad'))).toBe(false);
    expect(ConfigError.isInstance(conflict)).toBe(false);
    expect(SessionNotFoundError.isInstance(conflict)).toBe(false);
    for (const value of [null, undefined, 'ConfigError', new Error('x'), { name: 'ConfigError' }])
      expect(AgentkitError.isInstance(value)).toBe(false);
  });

  it('knows a subclass defined outside core (a plugin error) by its whole chain', () => {
    class QuotaError extends StateError {}
    const error = new QuotaError('over quota');
    expect(error.name).toBe('QuotaError');
    expect(QuotaError.isInstance(error)).toBe(true);
    expect(StateError.isInstance(error)).toBe(true);
    expect(AgentkitError.isInstance(error)).toBe(true);
    expect(QuotaError.isInstance(new StateError('plain'))).toBe(false);
  });

  it('works across two copies of the package, where instanceof does not', async () => {
    vi.resetModules();
    const copy = await import('./store-errors');
    const copyBase = await import('./agentkit-error');
    const other = new copy.VersionConflictError(key, 1, 2);
    expect(copy.VersionConflictError).not.toBe(VersionConflictError);
    expect(other instanceof VersionConflictError).toBe(false);
    expect(VersionConflictError.isInstance(other)).toBe(true);
    expect(AgentkitError.isInstance(other)).toBe(true);
    expect(ConfigError.isInstance(other)).toBe(false);
    expect(copyBase.AgentkitError.isInstance(new ConfigError('x'))).toBe(true);
    expect(copy.SessionNotFoundError.isInstance(new ConfigError('x'))).toBe(false);
  });
});
