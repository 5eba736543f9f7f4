import { describe, expect, it } from 'vitest';
import { InvalidInputError } from './errors/input-errors';
import { StoreDataError, VersionConflictError } from './errors/store-errors';
import {
  checkExpectedVersion,
  checkListOptions,
  checkSessionKey,
  checkUpdateArgs,
  checkUpsertArgs,
  checkLeaseOptions,
  checkWriteOptions,
  parseStoredState,
  parseStoredSummary,
  serializeAgentState,
} from './session-store-checks';
import { createAgentState } from './state';

const key = { userId: 'u', agentId: 'a', sessionId: 's' };
const t = '2026-11-30T10:00:00.000Z';

describe('session store input checks', () => {
  it('checkSessionKey returns the key of well-formed ids and names the bad one', () => {
    expect(checkSessionKey('u', 'a', 's')).toEqual(key);
    expect(() => checkSessionKey('u', '', 's')).toThrow(/agentId must be a non-empty string/);
    expect(() => checkSessionKey('u', 'a', 'x\uD800')).toThrow(InvalidInputError);
    expect(() => checkSessionKey(undefined, 'a', 's')).toThrow(/userId .* got undefined/);
  });

  it('checkListOptions defaults and caps the limit and normalises the cursor', () => {
    const signal = new AbortController().signal;
    expect(checkListOptions('u', 'a', undefined)).toEqual({ limit: 50, cursor: null, signal: undefined });
    expect(checkListOptions('u', 'a', { limit: 5000, cursor: 'c', signal }, 1000)).toEqual({
      limit: 1000,
      cursor: 'c',
      signal,
    });
    expect(checkListOptions('u', 'a', { limit: 3, cursor: null })).toMatchObject({ limit: 3, cursor: null });
    for (const bad of [null, 'x', [], { limit: 0 }, { limit: '5' }, { cursor: 7 }])
      expect(() => checkListOptions('u', 'a', bad), JSON.stringify(bad)).toThrow(InvalidInputError);
    expect(() => checkListOptions('u', 42, {})).toThrow(/agentId/);
  });

  it('checkWriteOptions accepts versions ≥ 0, positive lease tokens and a signal, each optional', () => {
    const none = { expectedVersion: undefined, leaseToken: undefined, signal: undefined };
    expect(checkWriteOptions(undefined)).toEqual(none);
    expect(checkWriteOptions({})).toEqual(none);
    expect(checkWriteOptions({ expectedVersion: 0, leaseToken: 7 })).toEqual({
      ...none,
      expectedVersion: 0,
      leaseToken: 7,
    });
    for (const bad of [
      null,
      3,
      { expectedVersion: -1 },
      { expectedVersion: 1.5 },
      { expectedVersion: '2' },
      { leaseToken: 0 },
      { leaseToken: 2 ** 60 },
      { leaseToken: 1n },
      { signal: 'stop' },
    ])
      expect(() => checkWriteOptions(bad), String(bad)).toThrow(InvalidInputError);
  });

  it('checkWriteOptions throws the reason of an aborted signal', () => {
    const controller = new AbortController();
    controller.abort(new Error('gone'));
    expect(() => checkWriteOptions({ signal: controller.signal })).toThrow('gone');
  });

  it('error messages describe BigInt, cyclic and huge values without throwing themselves', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    for (const id of [1n, cyclic, Symbol('s')])
      expect(() => checkSessionKey(id, 'a', 's')).toThrow(InvalidInputError);
    expect(() => checkListOptions('u', 'a', { cursor: 5n })).toThrow(InvalidInputError);
    expect(() => checkLeaseOptions({ ttlMs: 10n })).toThrow(InvalidInputError);
  });

  it('checkUpsertArgs checks the key and serialises what is given, leaving out what is not', () => {
    const state = createAgentState({ sessionId: 's' });
    expect(checkUpsertArgs('u', 'a', 's', undefined)).toEqual({
      key,
      stateJson: undefined,
      metadataJson: undefined,
      expectedVersion: undefined,
    });
    expect(checkUpsertArgs('u', 'a', 's', { state, metadata: { a: 1 }, expectedVersion: 2 })).toEqual({
      key,
      stateJson: JSON.stringify(state),
      metadataJson: '{"a":1}',
      expectedVersion: 2,
    });
    expect(() => checkUpsertArgs('u', 'a', '', {})).toThrow(/sessionId/);
    expect(() => checkUpsertArgs('u', 'a', 's', null)).toThrow(/upsertSession data must be an object/);
    expect(() => checkUpsertArgs('u', 'a', 's', { metadata: 'x' })).toThrow(/metadata must be a JSON object/);
    expect(() => checkUpsertArgs('u', 'a', 's', { metadata: { n: 1n } })).toThrow(
      /metadata is not JSON-serialisable/,
    );
    expect(() => checkUpsertArgs('u', 'a', 's', { expectedVersion: -2 })).toThrow(/expectedVersion/);
  });

  it('checkUpdateArgs checks the key, the state and the options', () => {
    const state = createAgentState({ sessionId: 's' });
    expect(checkUpdateArgs('u', 'a', 's', state, undefined)).toEqual({
      key,
      stateJson: JSON.stringify(state),
      expectedVersion: undefined,
    });
    expect(checkUpdateArgs('u', 'a', 's', state, { expectedVersion: 3 }).expectedVersion).toBe(3);
    expect(() => checkUpdateArgs('u', null, 's', state, undefined)).toThrow(/agentId/);
    expect(() => checkUpdateArgs('u', 'a', 's', [], undefined)).toThrow(/state must be an AgentState/);
    expect(() => checkUpdateArgs('u', 'a', 's', state, { expectedVersion: 'x' })).toThrow(/expectedVersion/);
  });

  it('serializeAgentState rejects what is not an agent state, or not JSON', () => {
    expect(() => serializeAgentState({ schemaVersion: 1, sessionId: 's' })).toThrow(
      /state must be an AgentState/,
    );
    const cyclic = createAgentState() as ReturnType<typeof createAgentState> & { self?: unknown };
    cyclic.self = cyclic;
    expect(() => serializeAgentState(cyclic)).toThrow(/state is not JSON-serialisable/);
  });

  it('checkExpectedVersion throws VersionConflictError with the stored version', () => {
    expect(() => checkExpectedVersion(key, undefined, 4)).not.toThrow();
    expect(() => checkExpectedVersion(key, 0, null)).not.toThrow();
    expect(() => checkExpectedVersion(key, 4, 4)).not.toThrow();
    const error = (() => {
      try {
        checkExpectedVersion(key, 1, null);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(VersionConflictError);
    expect(error).toMatchObject({ expectedVersion: 1, actualVersion: null, session: key });
    expect(() => checkExpectedVersion(key, 0, 1)).toThrow(VersionConflictError);
  });
});

describe('session store data checks', () => {
  it('parseStoredSummary accepts a number or decimal text as the version', () => {
    const fields = { version: 3, createdAt: t, updatedAt: t, metadata: { a: 1 } };
    const summary = { ...key, version: 3, createdAt: t, updatedAt: t, metadata: { a: 1 } };
    expect(parseStoredSummary(key, fields)).toEqual(summary);
    expect(parseStoredSummary(key, { ...fields, version: '3' })).toEqual(summary);
  });

  it('parseStoredSummary names the session and the bad field in a StoreDataError', () => {
    const good = { version: 1, createdAt: t, updatedAt: t, metadata: {} };
    const cases: Array<[object, RegExp]> = [
      [{ ...good, version: '03' }, /version "03" is not a positive integer/],
      [{ ...good, version: 0 }, /version 0/],
      [{ ...good, version: undefined }, /version null/],
      [{ ...good, version: '99999999999999999' }, /version/],
      [{ ...good, createdAt: 'yesterday' }, /createdAt "yesterday" is not a timestamp/],
      [{ ...good, updatedAt: 5 }, /updatedAt 5 is not a timestamp/],
      [{ ...good, metadata: [] }, /metadata is not a JSON object/],
    ];
    for (const [fields, reason] of cases) {
      let error: unknown;
      try {
        parseStoredSummary(key, fields);
      } catch (e) {
        error = e;
      }
      expect(error, reason.source).toBeInstanceOf(StoreDataError);
      expect((error as StoreDataError).session).toEqual(key);
      expect((error as Error).message).toMatch(reason);
    }
  });

  it('parseStoredState loads text or values and reports bad ones as StoreDataError', () => {
    const state = createAgentState({ sessionId: 's' });
    expect(parseStoredState(key, JSON.stringify(state))).toEqual(state);
    expect(parseStoredState(key, state)).toEqual(state);
    expect(() => parseStoredState(key, undefined)).toThrow(/it has no state/);
    expect(() => parseStoredState(key, '{oops')).toThrow(StoreDataError);
    expect(() => parseStoredState(key, { ...state, schemaVersion: 99 })).toThrow(StoreDataError);
  });
});
