import { describe, expect, it } from 'vitest';
import { InMemorySessionStore } from './in-memory-session-store';
import { createAgentState } from './state';
import { sessionStoreConformanceCases } from './testing/session-store-conformance';

describe('InMemorySessionStore conformance', () => {
  for (const c of sessionStoreConformanceCases(async () => ({ store: new InMemorySessionStore() })))
    it(c.name, c.run);
});

describe('InMemorySessionStore', () => {
  it('keeps separate instances separate', async () => {
    const a = new InMemorySessionStore();
    const b = new InMemorySessionStore();
    await a.upsertSession('u', 'a', 's');
    expect(await b.getSession('u', 'a', 's')).toBeNull();
  });

  it('stores JSON: values that JSON drops are dropped, like a persistent store would', async () => {
    const store = new InMemorySessionStore();
    const state = { ...createAgentState({ sessionId: 's' }), plugins: { p: { keep: 1, drop: undefined } } };
    const saved = await store.upsertSession('u', 'a', 's', { state: state as never });
    expect(saved.state.plugins).toEqual({ p: { keep: 1 } });
    expect(Object.keys(saved.state.plugins.p as object)).toEqual(['keep']);
  });

  it('returns the saved state itself from updateSessionState (no JSON round trip per checkpoint), keeping its own copy', async () => {
    const store = new InMemorySessionStore();
    await store.upsertSession('u', 'a', 's');
    const state = createAgentState({ sessionId: 's' });
    state.summary = 'before';
    const saved = await store.updateSessionState('u', 'a', 's', state);
    expect(saved.state).toBe(state);
    expect(saved.version).toBe(2);
    state.summary = 'changed after the save';
    saved.metadata.title = 'changed too';
    const loaded = await store.getSession('u', 'a', 's');
    expect(loaded?.state.summary).toBe('before');
    expect(loaded?.metadata).toEqual({});
  });

  it('pages with the default limit of 50', async () => {
    const store = new InMemorySessionStore();
    for (let i = 0; i < 55; i++) await store.upsertSession('u', 'a', `s${String(i).padStart(2, '0')}`);
    const first = await store.listSessions('u', 'a');
    expect(first.sessions).toHaveLength(50);
    expect(first.cursor).not.toBeNull();
    const rest = await store.listSessions('u', 'a', { cursor: first.cursor });
    expect(rest.sessions).toHaveLength(5);
    expect(rest.cursor).toBeNull();
    const ids = new Set([...first.sessions, ...rest.sessions].map((s) => s.sessionId));
    expect(ids.size).toBe(55);
  });
});
