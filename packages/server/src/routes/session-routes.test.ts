import { afterEach, describe, expect, it } from 'vitest';
import { as } from '@agentkit/test-fixtures';
import { startServer } from '../../test/helpers';
import { readSse } from '../testing';

type Served = Awaited<ReturnType<typeof startServer>>;
let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

describe('session routes', () => {
  it('create, list (paged), get, read messages, delete', async () => {
    served = await startServer();
    const alice = as('alice', served.url);
    const created = await alice('/agents/ops/sessions', {
      method: 'POST',
      body: JSON.stringify({ sessionId: 's1', metadata: { title: 'First' } }),
    });
    expect(created.status).toBe(201);
    expect(await created.json()).toMatchObject({
      sessionId: 's1',
      status: 'idle',
      metadata: { title: 'First' },
    });
    const again = await alice('/agents/ops/sessions', {
      method: 'POST',
      body: JSON.stringify({ sessionId: 's1' }),
    });
    expect(again.status).toBe(409);
    const random = (await (await alice('/agents/ops/sessions', { method: 'POST', body: '{}' })).json()) as {
      sessionId: string;
    };
    expect(random.sessionId).toMatch(/^[A-Za-z0-9_.~-]+$/);

    const page1 = (await (await alice('/agents/ops/sessions?limit=1')).json()) as {
      sessions: Array<{ sessionId: string }>;
      cursor: string | null;
      skipped: unknown[];
    };
    expect(page1.sessions).toHaveLength(1);
    expect(page1.skipped).toEqual([]);
    const page2 = (await (
      await alice(`/agents/ops/sessions?limit=1&cursor=${page1.cursor}`)
    ).json()) as typeof page1;
    expect(new Set([...page1.sessions, ...page2.sessions].map((s) => s.sessionId))).toEqual(
      new Set(['s1', random.sessionId]),
    );

    await readSse(
      await alice('/agents/ops/sessions/s1/replies', {
        method: 'POST',
        headers: { Accept: 'text/event-stream' },
        body: JSON.stringify({ input: 'Deploy.' }),
      }),
    );
    const view = (await (await alice('/agents/ops/sessions/s1')).json()) as Record<string, unknown>;
    expect(view).toMatchObject({ status: 'idle', lastReply: { finishedReason: 'completed' } });
    expect(view.state).toBeUndefined();

    const all = (await (await alice('/agents/ops/sessions/s1/messages')).json()) as {
      messages: Array<{ id: string; role: string }>;
      cursor: string | null;
    };
    expect(all.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(all.cursor).toBeNull();
    const last = (await (await alice('/agents/ops/sessions/s1/messages?limit=1')).json()) as typeof all;
    expect(last.messages.map((m) => m.role)).toEqual(['assistant']);
    const older = (await (
      await alice(`/agents/ops/sessions/s1/messages?limit=1&before=${last.cursor}`)
    ).json()) as typeof all;
    expect(older.messages.map((m) => m.role)).toEqual(['user']);
    expect((await alice('/agents/ops/sessions/s1/messages?before=nope')).status).toBe(400);

    expect((await alice('/agents/ops/sessions/s1', { method: 'DELETE' })).status).toBe(204);
    expect((await alice('/agents/ops/sessions/s1', { method: 'DELETE' })).status).toBe(404);
    expect((await alice('/agents/ops/sessions/s1')).status).toBe(404);
  });

  it("keeps users apart: another user's session is 404 everywhere, and never listed", async () => {
    served = await startServer();
    const alice = as('alice', served.url);
    const bob = as('bob', served.url);
    await alice('/agents/ops/sessions', { method: 'POST', body: JSON.stringify({ sessionId: 'private' }) });
    for (const [method, path] of [
      ['GET', '/agents/ops/sessions/private'],
      ['GET', '/agents/ops/sessions/private/messages'],
      ['GET', '/agents/ops/sessions/private/events'],
      ['DELETE', '/agents/ops/sessions/private'],
      ['POST', '/agents/ops/sessions/private/interrupt'],
    ] as const) {
      const r = await bob(path, { method });
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(await r.json()).toMatchObject({ code: 'NOT_FOUND' });
    }
    expect(((await (await bob('/agents/ops/sessions')).json()) as { sessions: unknown[] }).sessions).toEqual(
      [],
    );
    expect((await alice('/agents/ops/sessions/private')).status).toBe(200);
  });

  it('refuses missing credentials (401), unknown agents and routes (404), bad ids (400)', async () => {
    served = await startServer();
    const anonymous = await fetch(`${served.url}/agents/ops/sessions`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('content-type')).toMatch(/problem\+json/);
    const alice = as('alice', served.url);
    expect((await alice('/agents/nobody/sessions')).status).toBe(404);
    expect((await alice('/nowhere')).status).toBe(404);
    expect((await alice('/agents/ops/sessions/bad%20id')).status).toBe(400);
    expect((await alice(`/agents/ops/sessions/${'x'.repeat(129)}`)).status).toBe(400);
    expect((await alice('/agents/ops/sessions?limit=0')).status).toBe(400);
    expect((await alice('/agents/ops/sessions?limit=abc')).status).toBe(400);
  });

  it('answers 409 when deleting a session whose reply runs', async () => {
    const { opsAgent } = await import('../../test/helpers');
    served = await startServer({ agents: { ops: opsAgent([], { delayMs: 400 }) } });
    const alice = as('alice', served.url);
    await alice('/agents/ops/sessions/s1/replies', {
      method: 'POST',
      body: JSON.stringify({ input: 'Deploy.' }),
    });
    const busy = await alice('/agents/ops/sessions/s1', { method: 'DELETE' });
    expect(busy.status).toBe(409);
    expect(await busy.json()).toMatchObject({ code: 'SESSION_BUSY' });
  });

  it("refuses '.' and '..' as session ids: URLs resolve them as path segments, so the session could never be reached", async () => {
    served = await startServer();
    const alice = as('alice', served.url);
    for (const sessionId of ['.', '..']) {
      const r = await alice('/agents/ops/sessions', { method: 'POST', body: JSON.stringify({ sessionId }) });
      expect(r.status, sessionId).toBe(400);
      expect(await r.json()).toMatchObject({ code: 'INVALID_INPUT' });
    }
    const page = (await (await alice('/agents/ops/sessions')).json()) as { sessions: unknown[] };
    expect(page.sessions).toEqual([]);
    // Still fine inside an id.
    const dots = await alice('/agents/ops/sessions', {
      method: 'POST',
      body: JSON.stringify({ sessionId: '..a' }),
    });
    expect(dots.status).toBe(201);
    expect((await alice('/agents/ops/sessions/..a')).status).toBe(200);
  });
});
