import { InMemorySessionStore } from '@agentkit/core';
import { afterEach, describe, expect, it } from 'vitest';
import { as } from '@agentkit/test-fixtures';
import { opsAgent, startServer } from '../test/helpers';
import { readSse } from './testing';
import { createAgentServer } from './create-agent-server';
import { serveAgentServer } from './node/serve-agent-server';

type Served = Awaited<ReturnType<typeof startServer>>;
let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

describe('createAgentServer', () => {
  it('needs authenticate or an explicit development mode, a store and agents with URL-safe ids', () => {
    const store = new InMemorySessionStore();
    const agents = { ops: opsAgent([]) };
    expect(() => createAgentServer({ agents, store })).toThrow(/authenticate/);
    expect(() => createAgentServer({ agents, store, development: true, authenticate: () => 'x' })).toThrow(
      /either/,
    );
    expect(() => createAgentServer({ agents: {}, store, development: true })).toThrow(/at least one agent/);
    expect(() => createAgentServer({ agents: { 'a/b': opsAgent([]) }, store, development: true })).toThrow(
      /Agent id/,
    );
  });

  it('refuses to serve development mode on anything but loopback', async () => {
    const app = createAgentServer({
      agents: { ops: opsAgent([]) },
      store: new InMemorySessionStore(),
      development: true,
    });
    await expect(
      serveAgentServer(app, { hostname: '0.0.0.0', port: 0, handleSignals: false }),
    ).rejects.toThrow(/loopback/);
    const local = await serveAgentServer(app, { port: 0, handleSignals: false });
    try {
      const r = await fetch(`${local.url}/agents`);
      expect(r.status).toBe(200);
      expect(await r.json()).toEqual({ agents: [{ id: 'ops', description: null }] });
    } finally {
      await local.close();
    }
  });

  it('serves an OpenAPI 3.1 document of every route', async () => {
    served = await startServer();
    const doc = (await (await fetch(`${served.url}/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<string, Record<string, { requestBody?: unknown; responses: Record<string, unknown> }>>;
    };
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths).sort()).toEqual(
      [
        '/agents',
        '/agents/{agentId}/sessions',
        '/agents/{agentId}/sessions/{sessionId}',
        '/agents/{agentId}/sessions/{sessionId}/events',
        '/agents/{agentId}/sessions/{sessionId}/interrupt',
        '/agents/{agentId}/sessions/{sessionId}/messages',
        '/agents/{agentId}/sessions/{sessionId}/replies',
        '/openapi.json',
      ].sort(),
    );
    const reply = doc.paths['/agents/{agentId}/sessions/{sessionId}/replies']!.post!;
    expect(reply.requestBody).toBeDefined();
    expect(Object.keys(reply.responses)).toEqual(expect.arrayContaining(['202', '409', '413', '429']));
  });

  it('sends no CORS headers unless configured, and the configured ones when it is', async () => {
    served = await startServer();
    const plain = await fetch(`${served.url}/agents`, { headers: { Origin: 'https://evil.example' } });
    expect(plain.headers.get('access-control-allow-origin')).toBeNull();
    await served.close();
    served = await startServer({ cors: { origin: ['https://app.example'] } });
    const preflight = await fetch(`${served.url}/agents/ops/sessions`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBe('https://app.example');
  });

  it('turns a failing authenticate into a 500 without internals, and tags every response with a request id', async () => {
    served = await startServer({
      authenticate: () => {
        throw new Error('secret token service at 10.0.0.3 exploded');
      },
    });
    const r = await fetch(`${served.url}/agents`);
    expect(r.status).toBe(500);
    const body = await r.text();
    expect(body).not.toMatch(/10\.0\.0\.3|exploded|at /);
    expect(r.headers.get('x-request-id')).toBeTruthy();
    expect(JSON.parse(body)).toMatchObject({ requestId: r.headers.get('x-request-id') });
  });

  it('drains: new replies get 503, a running reply is suspended at a safe point and saved; another server continues it', async () => {
    const runs: string[] = [];
    const store = new InMemorySessionStore();
    const agent = opsAgent(runs, { delayMs: 300 });
    const app = createAgentServer({
      agents: { ops: agent },
      store,
      authenticate: (c) => c.req.header('Authorization')?.slice(7) ?? null,
    });
    const first = await serveAgentServer(app, {
      port: 0,
      handleSignals: false,
      drain: { graceMs: 0, timeoutMs: 5_000 },
    });
    const alice = as('alice', first.url);
    const stream = readSse(
      await alice('/agents/ops/sessions/s1/replies', {
        method: 'POST',
        headers: { Accept: 'text/event-stream' },
        body: JSON.stringify({ input: 'Deploy.' }),
      }),
    );
    await new Promise((r) => setTimeout(r, 100));
    const drained = app.drain({ graceMs: 0, timeoutMs: 5_000 });
    const late = await alice('/agents/ops/sessions/s2/replies', {
      method: 'POST',
      body: JSON.stringify({ input: 'x' }),
    });
    expect(late.status).toBe(503);
    expect(await late.json()).toMatchObject({ code: 'SERVER_DRAINING' });
    await drained;
    await first.close();
    const { messages } = await stream;
    expect(messages.at(-1)!.event).toMatchObject({ type: 'RUN_END', status: 'suspended' });
    expect(runs).toEqual(['billing']); // the tool round finished before the reply stopped
    expect(await store.getLease('alice', 'ops', 's1')).toBeNull();
    const saved = await store.getSession('alice', 'ops', 's1');
    expect(saved!.state.context.at(-1)!.finishedReason).toBeNull();

    served = await startServer({ store, agents: { ops: agent } });
    const again = await readSse(
      await as('alice', served.url)('/agents/ops/sessions/s1/replies', {
        method: 'POST',
        headers: { Accept: 'text/event-stream' },
        body: JSON.stringify({ input: null }),
      }),
    );
    expect(again.messages.map((m) => m.event.type)).toContain('REPLY_SNAPSHOT');
    expect(again.messages.at(-1)!.event).toMatchObject({ type: 'RUN_END', status: 'ended' });
    expect(runs).toEqual(['billing']);
    const done = await store.getSession('alice', 'ops', 's1');
    expect(done!.state.context.at(-1)!.finishedReason).toBe('completed');
  });
});
