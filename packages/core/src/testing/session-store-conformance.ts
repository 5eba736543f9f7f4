import assert from 'node:assert/strict';
import { AgentkitError } from '../errors/agentkit-error';
import { SessionNotFoundError, VersionConflictError } from '../errors/store-errors';
import type { SessionRecord, SessionStore } from '../session-store';
import { AGENT_STATE_SCHEMA_VERSION, type AgentState } from '../state';
import { pausedStateFixture } from './paused-state-fixture';

/**
 * Opens a fresh, empty store for one conformance case. `cleanup` (optional) runs after the case, pass or
 * fail: delete the keys, files or connections the case created.
 */
export type StoreFactory = () => Promise<{ store: SessionStore; cleanup?: () => Promise<void> }>;

/** One named behaviour of the {@link SessionStore} contract; `run` throws (node:assert) when it is broken. */
export interface ConformanceCase {
  name: string;
  run: () => Promise<void>;
}

/**
 * The behaviours every {@link SessionStore} must have, as framework-agnostic cases (they use
 * `node:assert/strict`). Run them with any test runner:
 * @example
 * import { describe, it } from 'vitest';
 * import { sessionStoreConformanceCases } from '@agentkit/core/testing';
 *
 * describe('MyStore conformance', () => {
 *   for (const c of sessionStoreConformanceCases(async () => ({ store: new MyStore() }))) it(c.name, c.run);
 * });
 */
export function sessionStoreConformanceCases(factory: StoreFactory): ConformanceCase[] {
  const withStore =
    (body: (store: SessionStore) => Promise<void>): (() => Promise<void>) =>
    async () => {
      const { store, cleanup } = await factory();
      try {
        await body(store);
      } finally {
        await cleanup?.();
      }
    };
  return Object.entries(cases).map(([name, body]) => ({ name, run: withStore(body) }));
}

const U = 'user-1';
const A = 'agent-1';

/** The realistic paused state of {@link pausedStateFixture}, shortened for the many cases below. */
const pausedAgentState = (sessionId: string, note?: string): AgentState =>
  pausedStateFixture({ sessionId, ...(note === undefined ? {} : { note }) });

function isoTimestamp(value: string, what: string): void {
  assert.equal(typeof value, 'string', `${what} is a string`);
  assert.equal(new Date(value).toISOString(), value, `${what} is an ISO 8601 timestamp`);
}

async function rejectsWith(promise: Promise<unknown>, code: string, what: string): Promise<unknown> {
  let error: unknown;
  try {
    await promise;
  } catch (e) {
    error = e;
  }
  assert.ok(error !== undefined, `${what}: expected an error with code ${code}, but it succeeded`);
  assert.ok(AgentkitError.isInstance(error), `${what}: expected an AgentkitError, got ${String(error)}`);
  assert.equal(error.code, code, `${what}: error code`);
  return error;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Sessions created with a pause between them, so their `createdAt` differ. */
async function createSpaced(
  store: SessionStore,
  userId: string,
  agentId: string,
  ids: string[],
): Promise<SessionRecord[]> {
  const out: SessionRecord[] = [];
  for (const id of ids) {
    out.push(await store.upsertSession(userId, agentId, id, { metadata: { title: id } }));
    await sleep(3);
  }
  return out;
}

/** Id pairs that collide in naive key schemes (concatenation, globbing, path joining, case folding). */
const hostileKeys: Array<[string, string, string]> = [
  ['a:b', 'c', 'd'],
  ['a', 'b:c', 'd'],
  ['a', 'b', 'c:d'],
  ['a:b:c', 'd', 'e'],
  ['{a}', 'b', 'c'],
  ['a', '{b}', 'c'],
  ['{a', 'b}', 'c'],
  ['}{', '{}', '{{}}'],
  ['*', '*', '*'],
  ['a*', '?', '[a-z]'],
  ['..', '..', '..'],
  ['.', '.', '.'],
  ['../a', 'b', 'c'],
  ['a/b', 'c', 'd'],
  ['a', 'b/c', 'd'],
  ['a', 'b', '../../etc/passwd'],
  ['a\\b', 'c', 'd'],
  ['Alice', 'Agent', 'S'],
  ['alice', 'agent', 's'],
  ['%41', '%2F', '%'],
  ['A', '/', '%25'],
  ['ユーザー', 'エージェント', 'セッション'],
  ['👩‍💻', '🤖', '💬'],
  ['é', 'x', 'y'],
  ['e\u0301', 'x', 'y'],
  [' ', '\n', '\t'],
  ['a\u0000b', 'c', 'd'],
  ['con', 'nul', 'aux.json'],
  ['x'.repeat(300), 'y'.repeat(300), 'z'.repeat(300)],
  ['x'.repeat(299), 'y'.repeat(300), 'z'.repeat(300)],
  ['user', 'agent', 'session.json'],
  ['user', 'agent', 'session.json.tmp'],
];

const cases: Record<string, (store: SessionStore) => Promise<void>> = {
  'getSession returns null for a session that does not exist': async (store) => {
    assert.equal(await store.getSession(U, A, 'missing'), null);
  },

  'upsertSession creates version 1 with a fresh state whose sessionId is the session id': async (store) => {
    const created = await store.upsertSession(U, A, 's1');
    assert.equal(created.userId, U);
    assert.equal(created.agentId, A);
    assert.equal(created.sessionId, 's1');
    assert.equal(created.version, 1);
    assert.deepEqual(created.metadata, {});
    isoTimestamp(created.createdAt, 'createdAt');
    isoTimestamp(created.updatedAt, 'updatedAt');
    assert.equal(created.state.sessionId, 's1');
    assert.equal(created.state.schemaVersion, AGENT_STATE_SCHEMA_VERSION);
    assert.deepEqual(created.state.context, []);
    assert.equal(created.state.reply, null);
    assert.deepEqual(await store.getSession(U, A, 's1'), created);
  },

  'upsertSession creates a session with the given state and metadata': async (store) => {
    const state = pausedAgentState('s1');
    const created = await store.upsertSession(U, A, 's1', {
      state,
      metadata: { title: 'Cleanup', tags: ['a'] },
    });
    assert.equal(created.version, 1);
    assert.deepEqual(created.state, state);
    assert.deepEqual(created.metadata, { title: 'Cleanup', tags: ['a'] });
    assert.deepEqual(await store.getSession(U, A, 's1'), created);
  },

  'upsertSession on an existing session replaces metadata and state in place and keeps createdAt': async (
    store,
  ) => {
    const first = await store.upsertSession(U, A, 's1', { metadata: { title: 'one' } });
    await sleep(3);
    const state = pausedAgentState('s1');
    const second = await store.upsertSession(U, A, 's1', { state, metadata: { title: 'two' } });
    assert.equal(second.version, 2);
    assert.equal(second.createdAt, first.createdAt);
    assert.ok(second.updatedAt > first.updatedAt, 'updatedAt moves forward');
    assert.deepEqual(second.metadata, { title: 'two' });
    assert.deepEqual(second.state, state);
    assert.deepEqual(await store.getSession(U, A, 's1'), second);
  },

  'upsertSession without state or metadata keeps the stored ones': async (store) => {
    const state = pausedAgentState('s1');
    await store.upsertSession(U, A, 's1', { state, metadata: { title: 'kept' } });
    const onlyMeta = await store.upsertSession(U, A, 's1', { metadata: { title: 'new' } });
    assert.equal(onlyMeta.version, 2);
    assert.deepEqual(onlyMeta.state, state);
    assert.deepEqual(onlyMeta.metadata, { title: 'new' });
    const nothing = await store.upsertSession(U, A, 's1');
    assert.equal(nothing.version, 3);
    assert.deepEqual(nothing.state, state);
    assert.deepEqual(nothing.metadata, { title: 'new' });
    assert.deepEqual(await store.getSession(U, A, 's1'), nothing);
  },

  'updateSessionState saves the state, bumps the version and keeps metadata and createdAt': async (store) => {
    const created = await store.upsertSession(U, A, 's1', { metadata: { title: 't' } });
    await sleep(3);
    const state = pausedAgentState('s1');
    const updated = await store.updateSessionState(U, A, 's1', state);
    assert.equal(updated.version, 2);
    assert.equal(updated.createdAt, created.createdAt);
    assert.ok(updated.updatedAt > created.updatedAt, 'updatedAt moves forward');
    assert.deepEqual(updated.metadata, { title: 't' });
    assert.deepEqual(updated.state, state);
    assert.deepEqual(await store.getSession(U, A, 's1'), updated);
  },

  'updateSessionState on a missing session throws SessionNotFoundError and creates nothing': async (
    store,
  ) => {
    const error = await rejectsWith(
      store.updateSessionState(U, A, 'nope', pausedAgentState('nope')),
      'SESSION_NOT_FOUND',
      'update missing',
    );
    assert.ok(error instanceof SessionNotFoundError);
    assert.deepEqual(error.session, { userId: U, agentId: A, sessionId: 'nope' });
    await rejectsWith(
      store.updateSessionState(U, A, 'nope', pausedAgentState('nope'), { expectedVersion: 0 }),
      'SESSION_NOT_FOUND',
      'update missing with expectedVersion 0',
    );
    assert.equal(await store.getSession(U, A, 'nope'), null);
    assert.deepEqual((await store.listSessions(U, A)).sessions, []);
  },

  'a paused agent state round-trips deeply equal': async (store) => {
    const state = pausedAgentState('round-trip', 'zero\u0000byte and emoji 🧪');
    await store.upsertSession(U, A, 'round-trip', { state });
    const loaded = await store.getSession(U, A, 'round-trip');
    assert.ok(loaded);
    assert.deepEqual(loaded.state, state);
    const next = structuredClone(state);
    next.context.push({
      id: 'm3',
      name: 'user',
      role: 'user',
      content: [
        {
          type: 'data',
          id: 'd1',
          source: { type: 'base64', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
          name: 'a.png',
        },
      ],
      metadata: {},
      createdAt: '2026-11-30T10:01:00.000Z',
      usage: null,
      finishedAt: null,
      finishedReason: null,
      structuredOutput: null,
      error: null,
    });
    await store.updateSessionState(U, A, 'round-trip', next);
    assert.deepEqual((await store.getSession(U, A, 'round-trip'))?.state, next);
  },

  'the store keeps its own copy (mutating inputs or results changes nothing stored)': async (store) => {
    const state = pausedAgentState('s1');
    const metadata = { title: 'orig' };
    const created = await store.upsertSession(U, A, 's1', { state, metadata });
    state.context.length = 0;
    metadata.title = 'changed';
    created.state.summary = 'changed';
    created.metadata.title = 'changed';
    const loaded = await store.getSession(U, A, 's1');
    assert.deepEqual(loaded?.state, pausedAgentState('s1'));
    assert.deepEqual(loaded?.metadata, { title: 'orig' });
  },

  'expectedVersion: a matching write succeeds, a stale one throws VersionConflictError and writes nothing':
    async (store) => {
      const v1 = await store.upsertSession(U, A, 's1', { metadata: { n: 1 } });
      const v2 = await store.updateSessionState(U, A, 's1', pausedAgentState('s1', 'v2'), {
        expectedVersion: v1.version,
      });
      assert.equal(v2.version, 2);
      const error = await rejectsWith(
        store.updateSessionState(U, A, 's1', pausedAgentState('s1', 'stale'), { expectedVersion: 1 }),
        'VERSION_CONFLICT',
        'stale update',
      );
      assert.ok(error instanceof VersionConflictError);
      assert.equal(error.expectedVersion, 1);
      assert.equal(error.actualVersion, 2);
      assert.deepEqual(error.session, { userId: U, agentId: A, sessionId: 's1' });
      await rejectsWith(
        store.upsertSession(U, A, 's1', {
          metadata: { n: 'stale' },
          state: pausedAgentState('s1', 'stale'),
          expectedVersion: 1,
        }),
        'VERSION_CONFLICT',
        'stale upsert',
      );
      await rejectsWith(
        store.updateSessionState(U, A, 's1', pausedAgentState('s1', 'future'), { expectedVersion: 3 }),
        'VERSION_CONFLICT',
        'future version',
      );
      const stored = await store.getSession(U, A, 's1');
      assert.deepEqual(stored, v2, 'nothing was written by the stale writers');
      const v3 = await store.upsertSession(U, A, 's1', { metadata: { n: 3 }, expectedVersion: 2 });
      assert.equal(v3.version, 3);
      assert.deepEqual(v3.state, v2.state);
    },

  'expectedVersion 0 means the session must not exist yet': async (store) => {
    const created = await store.upsertSession(U, A, 's1', {
      state: pausedAgentState('s1'),
      expectedVersion: 0,
    });
    assert.equal(created.version, 1);
    const error = await rejectsWith(
      store.upsertSession(U, A, 's1', { state: pausedAgentState('s1', 'second'), expectedVersion: 0 }),
      'VERSION_CONFLICT',
      'create twice',
    );
    assert.ok(error instanceof VersionConflictError);
    assert.equal(error.expectedVersion, 0);
    assert.equal(error.actualVersion, 1);
    const missing = await rejectsWith(
      store.upsertSession(U, A, 'other', { expectedVersion: 4 }),
      'VERSION_CONFLICT',
      'upsert a missing session expecting version 4',
    );
    assert.ok(missing instanceof VersionConflictError);
    assert.equal(missing.actualVersion, null);
    assert.equal(await store.getSession(U, A, 'other'), null);
    assert.deepEqual(await store.getSession(U, A, 's1'), created);
  },

  'without expectedVersion the last writer wins': async (store) => {
    await store.upsertSession(U, A, 's1');
    await store.updateSessionState(U, A, 's1', pausedAgentState('s1', 'a'));
    const last = await store.updateSessionState(U, A, 's1', pausedAgentState('s1', 'b'));
    assert.equal(last.version, 3);
    assert.deepEqual((await store.getSession(U, A, 's1'))?.state, pausedAgentState('s1', 'b'));
  },

  'concurrent writers with the same expectedVersion: exactly one wins, the state is the winner’s': async (
    store,
  ) => {
    await store.upsertSession(U, A, 's1');
    const writers = Array.from({ length: 8 }, (_, i) =>
      store.updateSessionState(U, A, 's1', pausedAgentState('s1', `writer-${i}`), { expectedVersion: 1 }),
    );
    const results = await Promise.allSettled(writers);
    const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
    assert.equal(won.length, 1, 'exactly one writer wins');
    for (const r of results)
      if (r.status === 'rejected') {
        assert.ok(
          r.reason instanceof VersionConflictError,
          `losers get VersionConflictError, got ${String(r.reason)}`,
        );
        assert.equal(r.reason.actualVersion, 2);
      }
    const stored = await store.getSession(U, A, 's1');
    assert.equal(stored?.version, 2);
    assert.deepEqual(stored?.state, pausedAgentState('s1', `writer-${won[0]}`));
  },

  'concurrent creators with expectedVersion 0: exactly one wins': async (store) => {
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, (_, i) =>
        store.upsertSession(U, A, 'new', {
          metadata: { creator: i },
          state: pausedAgentState('new', `c${i}`),
          expectedVersion: 0,
        }),
      ),
    );
    const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [i] : []));
    assert.equal(won.length, 1);
    for (const r of results) if (r.status === 'rejected') assert.ok(r.reason instanceof VersionConflictError);
    const stored = await store.getSession(U, A, 'new');
    assert.equal(stored?.version, 1);
    assert.deepEqual(stored?.metadata, { creator: won[0] });
    assert.equal((await store.listSessions(U, A)).sessions.length, 1);
  },

  'listSessions: an unknown user or agent has no sessions': async (store) => {
    assert.deepEqual(await store.listSessions('nobody', 'nothing'), {
      sessions: [],
      cursor: null,
      skipped: [],
    });
  },

  'listSessions returns summaries newest first and pages through all of them with the cursor': async (
    store,
  ) => {
    const ids = ['s1', 's2', 's3', 's4', 's5'];
    await createSpaced(store, U, A, ids);
    await store.updateSessionState(U, A, 's2', pausedAgentState('s2'));
    const all = await store.listSessions(U, A);
    assert.deepEqual(
      all.sessions.map((s) => s.sessionId),
      [...ids].reverse(),
    );
    assert.equal(all.cursor, null);
    const s2 = all.sessions.find((s) => s.sessionId === 's2');
    assert.equal(s2?.version, 2);
    assert.deepEqual(s2?.metadata, { title: 's2' });
    for (const s of all.sessions) {
      assert.equal(s.userId, U);
      assert.equal(s.agentId, A);
      assert.ok(!('state' in s), 'summaries carry no state');
      isoTimestamp(s.createdAt, 'createdAt');
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Awaited<ReturnType<SessionStore['listSessions']>> = await store.listSessions(U, A, {
        limit: 2,
        cursor,
      });
      assert.ok(page.sessions.length <= 2);
      seen.push(...page.sessions.map((s) => s.sessionId));
      cursor = page.cursor;
      pages++;
      assert.ok(pages < 10, 'pagination terminates');
    } while (cursor !== null);
    assert.deepEqual(seen, ['s5', 's4', 's3', 's2', 's1']);
  },

  'listSessions pagination neither repeats nor skips when sessions are created or deleted between pages':
    async (store) => {
      await createSpaced(store, U, A, ['s1', 's2', 's3', 's4']);
      const first = await store.listSessions(U, A, { limit: 2 });
      assert.deepEqual(
        first.sessions.map((s) => s.sessionId),
        ['s4', 's3'],
      );
      await store.upsertSession(U, A, 's-new');
      assert.equal(await store.deleteSession(U, A, 's4'), true);
      const second = await store.listSessions(U, A, { limit: 2, cursor: first.cursor });
      assert.deepEqual(
        second.sessions.map((s) => s.sessionId),
        ['s2', 's1'],
      );
    },

  'listSessions isolates users and agents': async (store) => {
    await store.upsertSession(U, A, 'mine');
    await store.upsertSession(U, 'agent-2', 'other-agent');
    await store.upsertSession('user-2', A, 'other-user');
    assert.deepEqual(
      (await store.listSessions(U, A)).sessions.map((s) => s.sessionId),
      ['mine'],
    );
    assert.deepEqual(
      (await store.listSessions(U, 'agent-2')).sessions.map((s) => s.sessionId),
      ['other-agent'],
    );
    assert.deepEqual(
      (await store.listSessions('user-2', A)).sessions.map((s) => s.sessionId),
      ['other-user'],
    );
    assert.equal(await store.getSession('user-2', A, 'mine'), null);
    assert.equal(await store.getSession(U, 'agent-2', 'mine'), null);
  },

  'the same session id under different users or agents is a different session': async (store) => {
    await store.upsertSession(U, A, 'same', {
      state: pausedAgentState('same', 'u1a1'),
      metadata: { who: 'u1a1' },
    });
    await store.upsertSession('user-2', A, 'same', {
      state: pausedAgentState('same', 'u2a1'),
      metadata: { who: 'u2a1' },
    });
    await store.upsertSession(U, 'agent-2', 'same', {
      state: pausedAgentState('same', 'u1a2'),
      metadata: { who: 'u1a2' },
    });
    assert.deepEqual((await store.getSession(U, A, 'same'))?.state, pausedAgentState('same', 'u1a1'));
    assert.deepEqual((await store.getSession('user-2', A, 'same'))?.metadata, { who: 'u2a1' });
    assert.deepEqual((await store.getSession(U, 'agent-2', 'same'))?.metadata, { who: 'u1a2' });
    assert.equal(await store.deleteSession('user-2', A, 'same'), true);
    assert.equal((await store.getSession(U, A, 'same'))?.version, 1);
    assert.equal((await store.getSession(U, 'agent-2', 'same'))?.version, 1);
  },

  'listSessions rejects a bad limit or cursor with a typed error': async (store) => {
    await store.upsertSession(U, A, 's1');
    for (const limit of [0, -1, 1.5, Number.NaN])
      await rejectsWith(store.listSessions(U, A, { limit }), 'INVALID_INPUT', `limit ${limit}`);
    await rejectsWith(
      store.listSessions(U, A, { cursor: 'not-a-cursor' }),
      'INVALID_INPUT',
      'garbage cursor',
    );
  },

  'deleteSession returns true, then false; the session is gone from get and list': async (store) => {
    await store.upsertSession(U, A, 's1');
    await store.upsertSession(U, A, 's2');
    assert.equal(await store.deleteSession(U, A, 's1'), true);
    assert.equal(await store.deleteSession(U, A, 's1'), false);
    assert.equal(await store.deleteSession(U, A, 'never'), false);
    assert.equal(await store.getSession(U, A, 's1'), null);
    assert.deepEqual(
      (await store.listSessions(U, A)).sessions.map((s) => s.sessionId),
      ['s2'],
    );
    await rejectsWith(
      store.updateSessionState(U, A, 's1', pausedAgentState('s1')),
      'SESSION_NOT_FOUND',
      'update deleted',
    );
    const again = await store.upsertSession(U, A, 's1');
    assert.equal(again.version, 1);
  },

  'hostile ids never collide with or reach other users’, agents’ or sessions’ records': async (store) => {
    for (const [i, [u, a, s]] of hostileKeys.entries())
      await store.upsertSession(u, a, s, { state: pausedAgentState(`state-${i}`), metadata: { i } });
    for (const [i, [u, a, s]] of hostileKeys.entries()) {
      const record = await store.getSession(u, a, s);
      assert.ok(record, `session ${i} exists`);
      assert.deepEqual([record.userId, record.agentId, record.sessionId], [u, a, s]);
      assert.deepEqual(record.metadata, { i }, `session ${i} is its own`);
      assert.equal(record.version, 1, `session ${i} was written once`);
      assert.equal(record.state.sessionId, `state-${i}`);
      const listed = await store.listSessions(u, a, { limit: 100 });
      const expected = hostileKeys.filter(([u2, a2]) => u2 === u && a2 === a).map(([, , s2]) => s2);
      assert.ok(expected.includes(s));
      assert.deepEqual(
        listed.sessions.map((x) => x.sessionId).sort(),
        expected.sort(),
        `listing of user/agent ${i} holds only its sessions`,
      );
    }
    assert.equal(await store.getSession('a', 'b', 'c'), null);
    assert.equal(await store.getSession('a', 'b:c:d', 'd'), null);
    assert.equal(await store.getSession('*', '*', 'x'), null);
    assert.equal(await store.getSession('x', 'x', '*'), null);
    assert.equal(await store.deleteSession('*', '*', 'other'), false);
    assert.equal(await store.deleteSession('a', '*', '*'), false);
    assert.equal(await store.deleteSession('a:b', 'c', 'd'), true);
    assert.equal((await store.getSession('a', 'b:c', 'd'))?.metadata.i, 1);
    assert.equal((await store.getSession('a', 'b', 'c:d'))?.metadata.i, 2);
  },

  'invalid ids (empty, not a string, lone surrogates) are rejected with a typed error': async (store) => {
    const bad: unknown[] = ['', '\uD800', 'a\uDC00b', undefined, null, 42];
    for (const id of bad) {
      const v = id as string;
      await rejectsWith(
        store.getSession(v, A, 's'),
        'INVALID_INPUT',
        `get with userId ${JSON.stringify(id)}`,
      );
      await rejectsWith(
        store.getSession(U, v, 's'),
        'INVALID_INPUT',
        `get with agentId ${JSON.stringify(id)}`,
      );
      await rejectsWith(
        store.upsertSession(U, A, v),
        'INVALID_INPUT',
        `upsert with sessionId ${JSON.stringify(id)}`,
      );
      await rejectsWith(store.updateSessionState(U, A, v, pausedAgentState('x')), 'INVALID_INPUT', 'update');
      await rejectsWith(store.deleteSession(U, A, v), 'INVALID_INPUT', 'delete');
      await rejectsWith(store.listSessions(v, A), 'INVALID_INPUT', 'list');
    }
    assert.deepEqual((await store.listSessions(U, A)).sessions, []);
  },

  'invalid writes (not a state, bad metadata, bad expectedVersion) are rejected and write nothing': async (
    store,
  ) => {
    const created = await store.upsertSession(U, A, 's1', { state: pausedAgentState('s1') });
    const notStates: unknown[] = [null, 'state', [], {}, { ...pausedAgentState('s1'), schemaVersion: 999 }];
    for (const state of notStates) {
      await rejectsWith(
        store.updateSessionState(U, A, 's1', state as AgentState),
        'INVALID_INPUT',
        `update with ${JSON.stringify(state)}`,
      );
      await rejectsWith(
        store.upsertSession(U, A, 's2', { state: state as AgentState }),
        'INVALID_INPUT',
        'upsert with bad state',
      );
    }
    await rejectsWith(
      store.upsertSession(U, A, 's1', { metadata: [] as never }),
      'INVALID_INPUT',
      'array metadata',
    );
    await rejectsWith(
      store.upsertSession(U, A, 's1', { expectedVersion: -1 }),
      'INVALID_INPUT',
      'negative expectedVersion',
    );
    await rejectsWith(
      store.updateSessionState(U, A, 's1', pausedAgentState('s1'), { expectedVersion: 1.5 }),
      'INVALID_INPUT',
      'fractional expectedVersion',
    );
    const circular = pausedAgentState('s1') as AgentState & { self?: unknown };
    circular.self = circular;
    await rejectsWith(store.updateSessionState(U, A, 's1', circular), 'INVALID_INPUT', 'circular state');
    assert.deepEqual(await store.getSession(U, A, 's1'), created);
    assert.equal(await store.getSession(U, A, 's2'), null);
  },

  'listSessions returns an empty skipped list when every record is good': async (store) => {
    await store.upsertSession(U, A, 's1');
    const page = await store.listSessions(U, A);
    assert.deepEqual(page.skipped, []);
    assert.deepEqual(
      page.sessions.map((x) => x.sessionId),
      ['s1'],
    );
  },

  'acquireLease grants a positive token; a second holder gets SessionBusyError naming the owner': async (
    store,
  ) => {
    const grant = await store.acquireLease(U, A, 's1', { ttlMs: 5_000, owner: 'worker-a' });
    assert.ok(Number.isSafeInteger(grant.token) && grant.token >= 1, 'token is a positive integer');
    assert.equal(grant.owner, 'worker-a');
    assert.ok(grant.expiresAt > Date.now() + 3_000, 'expiresAt lies about ttlMs ahead');
    const busy = (await rejectsWith(
      store.acquireLease(U, A, 's1', { owner: 'worker-b' }),
      'SESSION_BUSY',
      'second acquire',
    )) as { owner: string | null; expiresAt: number | null };
    assert.equal(busy.owner, 'worker-a');
    assert.equal(busy.expiresAt, grant.expiresAt);
    assert.deepEqual(await store.getLease(U, A, 's1'), grant);
    // Other sessions are not affected.
    const other = await store.acquireLease(U, A, 's2');
    assert.ok(other.token >= 1);
  },

  'lease tokens only grow: release then acquire again, and after a delete': async (store) => {
    const first = await store.acquireLease(U, A, 's1');
    assert.equal(await store.releaseLease(U, A, 's1', first.token), true);
    assert.equal(await store.releaseLease(U, A, 's1', first.token), false, 'a second release is a no-op');
    assert.equal(await store.getLease(U, A, 's1'), null);
    const second = await store.acquireLease(U, A, 's1');
    assert.ok(second.token > first.token, 'a later grant has a larger token');
    await store.upsertSession(U, A, 's1', { leaseToken: second.token });
    assert.equal(await store.deleteSession(U, A, 's1', { leaseToken: second.token }), true);
    await store.releaseLease(U, A, 's1', second.token);
    const third = await store.acquireLease(U, A, 's1');
    assert.ok(third.token > second.token, 'deleting the session does not reset the tokens');
    await rejectsWith(
      store.upsertSession(U, A, 's1', { leaseToken: second.token }),
      'LEASE_LOST',
      'a stale token after delete and re-acquire',
    );
    assert.equal(await store.getSession(U, A, 's1'), null, 'nothing was written');
  },

  'writes under the current lease succeed; without a token while it is held they are refused': async (
    store,
  ) => {
    const created = await store.upsertSession(U, A, 's1', { state: pausedAgentState('s1') });
    const { token } = await store.acquireLease(U, A, 's1');
    const saved = await store.updateSessionState(U, A, 's1', pausedAgentState('s1', 'leased'), {
      leaseToken: token,
    });
    assert.equal(saved.version, created.version + 1);
    const withMeta = await store.upsertSession(U, A, 's1', { metadata: { t: 1 }, leaseToken: token });
    assert.equal(withMeta.version, created.version + 2);
    await rejectsWith(
      store.updateSessionState(U, A, 's1', pausedAgentState('s1', 'intruder')),
      'SESSION_BUSY',
      'update without a token',
    );
    await rejectsWith(
      store.upsertSession(U, A, 's1', { metadata: { t: 2 } }),
      'SESSION_BUSY',
      'upsert without a token',
    );
    await rejectsWith(store.deleteSession(U, A, 's1'), 'SESSION_BUSY', 'delete without a token');
    await rejectsWith(
      store.updateSessionState(U, A, 's1', pausedAgentState('s1', 'forged'), { leaseToken: token + 1 }),
      'LEASE_LOST',
      'update with a token that was never granted',
    );
    const stored = await store.getSession(U, A, 's1');
    assert.equal(stored?.version, withMeta.version, 'refused writes wrote nothing');
    assert.deepEqual(stored?.metadata, { t: 1 });
    assert.deepEqual(stored?.state.context, pausedAgentState('s1', 'leased').context);
    await store.releaseLease(U, A, 's1', token);
    const after = await store.updateSessionState(U, A, 's1', pausedAgentState('s1'));
    assert.equal(after.version, withMeta.version + 1, 'unleased writes work again after the release');
  },

  'an expired lease can be taken over; the stale holder can no longer write, renew or release': async (
    store,
  ) => {
    await store.upsertSession(U, A, 's1', { state: pausedAgentState('s1') });
    const stale = await store.acquireLease(U, A, 's1', { ttlMs: 150, owner: 'stalled' });
    await sleep(300);
    assert.equal(await store.getLease(U, A, 's1'), null, 'an expired lease is not reported');
    // Expired but not yet taken over: the stale holder's write is still refused.
    await rejectsWith(
      store.updateSessionState(U, A, 's1', pausedAgentState('s1', 'late'), { leaseToken: stale.token }),
      'LEASE_LOST',
      'write under an expired lease',
    );
    const next = await store.acquireLease(U, A, 's1', { owner: 'taker' });
    assert.ok(next.token > stale.token);
    const saved = await store.updateSessionState(U, A, 's1', pausedAgentState('s1', 'taker'), {
      leaseToken: next.token,
    });
    await rejectsWith(
      store.updateSessionState(U, A, 's1', pausedAgentState('s1', 'stale'), { leaseToken: stale.token }),
      'LEASE_LOST',
      'write of the stale holder',
    );
    await rejectsWith(store.renewLease(U, A, 's1', stale.token), 'LEASE_LOST', 'renew of the stale holder');
    assert.equal(await store.releaseLease(U, A, 's1', stale.token), false, 'release of the stale holder');
    const stored = await store.getSession(U, A, 's1');
    assert.equal(stored?.version, saved.version, "the taker's save stands");
    assert.deepEqual(stored?.state.context, pausedAgentState('s1', 'taker').context);
    assert.equal((await store.getLease(U, A, 's1'))?.owner, 'taker', 'the taker still holds it');
  },

  'renewLease keeps a lease alive past its first ttl': async (store) => {
    const grant = await store.acquireLease(U, A, 's1', { ttlMs: 1_000 });
    await sleep(500);
    const renewed = await store.renewLease(U, A, 's1', grant.token, { ttlMs: 1_000 });
    assert.equal(renewed.token, grant.token);
    assert.ok(renewed.expiresAt > grant.expiresAt, 'the end moves forward');
    await sleep(700); // 1.2 s after the grant: past the first ttl, well within the renewed one
    assert.equal((await store.getLease(U, A, 's1'))?.token, grant.token);
    await rejectsWith(store.acquireLease(U, A, 's1'), 'SESSION_BUSY', 'still held after renewal');
    const created = await store.upsertSession(U, A, 's1', { leaseToken: grant.token });
    assert.equal(created.version, 1, 'a lease may guard the creation of its session');
  },

  'of many concurrent acquirers exactly one gets the lease': async (store) => {
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) => store.acquireLease(U, A, 's1', { owner: `w${i}` })),
    );
    const granted = results.filter((r) => r.status === 'fulfilled');
    assert.equal(granted.length, 1, 'exactly one grant');
    for (const r of results)
      if (r.status === 'rejected')
        assert.equal((r.reason as { code?: string }).code, 'SESSION_BUSY', 'the others are busy');
  },

  'bad lease arguments are rejected with a typed error and change nothing': async (store) => {
    for (const ttlMs of [0, 5, -1, 1.5, Number.NaN, '1000', 10 ** 12])
      await rejectsWith(
        store.acquireLease(U, A, 's1', { ttlMs: ttlMs as number }),
        'INVALID_INPUT',
        `ttlMs ${String(ttlMs)}`,
      );
    for (const owner of ['', 7, 'x'.repeat(201)])
      await rejectsWith(
        store.acquireLease(U, A, 's1', { owner: owner as string }),
        'INVALID_INPUT',
        `owner ${JSON.stringify(owner)}`,
      );
    for (const token of [0, -1, 1.5, '1', null, 2 ** 60]) {
      await rejectsWith(
        store.renewLease(U, A, 's1', token as number),
        'INVALID_INPUT',
        `renew token ${String(token)}`,
      );
      await rejectsWith(
        store.upsertSession(U, A, 's1', { leaseToken: token as number }),
        'INVALID_INPUT',
        `write token ${String(token)}`,
      );
    }
    await rejectsWith(store.acquireLease('', A, 's1'), 'INVALID_INPUT', 'bad id');
    assert.equal(await store.getLease(U, A, 's1'), null, 'no lease was taken');
    assert.equal(await store.getSession(U, A, 's1'), null, 'nothing was written');
  },

  'every method rejects with the reason of an aborted signal and writes nothing': async (store) => {
    const controller = new AbortController();
    const reason = new Error('caller gave up');
    controller.abort(reason);
    const signal = controller.signal;
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['getSession', () => store.getSession(U, A, 's1', { signal })],
      ['upsertSession', () => store.upsertSession(U, A, 's1', { signal })],
      ['updateSessionState', () => store.updateSessionState(U, A, 's1', pausedAgentState('s1'), { signal })],
      ['listSessions', () => store.listSessions(U, A, { signal })],
      ['deleteSession', () => store.deleteSession(U, A, 's1', { signal })],
      ['acquireLease', () => store.acquireLease(U, A, 's1', { signal })],
      ['renewLease', () => store.renewLease(U, A, 's1', 1, { signal })],
      ['releaseLease', () => store.releaseLease(U, A, 's1', 1, { signal })],
      ['getLease', () => store.getLease(U, A, 's1', { signal })],
    ];
    for (const [name, call] of calls) {
      let error: unknown;
      try {
        await call();
      } catch (e) {
        error = e;
      }
      assert.equal(error, reason, `${name} rejects with the signal's reason`);
    }
    assert.equal(await store.getSession(U, A, 's1'), null);
    assert.equal(await store.getLease(U, A, 's1'), null);
  },
};
