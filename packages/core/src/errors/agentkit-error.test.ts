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

  it('every error class of core recognises itself and its subclasses only', async () => {
    const core = await import('../index');
    const key = { userId: 'u', agentId: 'a', sessionId: 's' };
    // One instance of every error class core exports, built the way core builds it.
    const instances: Record<string, InstanceType<typeof core.AgentkitError>> = {
      ConfigError: new core.ConfigError('bad'),
      PluginHookError: new core.PluginHookError('p', 'beforeTool', new Error('x')),
      ModelError: new core.ModelError('upstream', 'x'),
      MessageValidationError: new core.MessageValidationError('x'),
      InvalidInputError: new core.InvalidInputError('x'),
      ReplyPausedError: new core.ReplyPausedError(['c1']),
      ResumeMismatchError: new core.ResumeMismatchError('x'),
      StateError: new core.StateError('x'),
      SessionNotFoundError: new core.SessionNotFoundError(key),
      VersionConflictError: new core.VersionConflictError(key, 1, 2),
      StoreDataError: new core.StoreDataError(key, 'x'),
      StoreConnectionError: new core.StoreConnectionError('x'),
      ReplyTimeoutError: new core.ReplyTimeoutError(1000),
      SessionBusyError: new core.SessionBusyError(key),
      LeaseLostError: new core.LeaseLostError(key, 3),
    };
    const classes = Object.entries(core).filter(
      ([, v]) => typeof v === 'function' && v.prototype instanceof core.AgentkitError,
    ) as Array<[string, typeof core.AgentkitError]>;
    // Every exported error class is in the table above (a new one must be added there).
    expect(classes.map(([name]) => name).sort()).toEqual(Object.keys(instances).sort());
    for (const [name, cls] of classes)
      for (const [other, error] of Object.entries(instances)) {
        expect(cls.isInstance(error), `${name}.isInstance(new ${other})`).toBe(name === other);
        // …and across copies of core: this file's own copy of the base class knows them too.
        expect(AgentkitError.isInstance(error)).toBe(true);
      }
  });
});
