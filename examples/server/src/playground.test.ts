import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type AgentEvent, type InputEvent, type Msg, replayEvents } from '@agentkit/core';
import type { LogEvent, SessionView } from '@agentkit/server';
import { DEMO_TASK } from '@example/quickstart/src/demo-task';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSse } from './page/read-sse';
import { type SpawnedPlayground, spawnPlayground } from './spawn-playground';

let playground: SpawnedPlayground;
beforeAll(async () => {
  playground = await spawnPlayground({ delayMs: 0 });
});
afterAll(async () => {
  await playground?.stop();
});

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${playground.url}/api${path}`, {
    ...init,
    headers: { 'Content-Type': 'application/json', ...(init.headers ?? {}) },
  });

/** POSTs a reply with `Accept: text/event-stream` and reads its events to the end of the run. */
async function streamReply(sessionId: string, input: unknown): Promise<LogEvent[]> {
  const response = await api(`/agents/quickstart/sessions/${sessionId}/replies`, {
    method: 'POST',
    headers: { Accept: 'text/event-stream' },
    body: JSON.stringify({ input }),
  });
  expect(response.status).toBe(200);
  const events: LogEvent[] = [];
  for await (const message of readSse(response.body!)) {
    expect(message.id).toMatch(/\S/);
    events.push(JSON.parse(message.data) as LogEvent);
  }
  return events;
}

describe('the playground server', () => {
  it('prints what it runs with and where to open it', () => {
    expect(playground.output()).toContain('no API key set: using the scripted model');
    expect(playground.output()).toContain(`sessions: files in ${join(playground.demoDir, 'sessions')}`);
    expect(playground.output()).toContain('events:   in memory (this process)');
  });

  it('serves the page, its bundled script (with the reducer) and stylesheet, under a strict CSP', async () => {
    const page = await fetch(`${playground.url}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'none'; script-src 'self'/);
    const html = await page.text();
    expect(html).toContain('<script type="module" src="/app.js"></script>');
    const script = await fetch(`${playground.url}/app.js`);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    const js = await script.text();
    expect(js).toContain('REPLY_SNAPSHOT'); // applyEvent from @agentkit/core is bundled in
    expect(js).not.toContain('innerHTML');
    const css = await fetch(`${playground.url}/style.css`);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    expect((await fetch(`${playground.url}/nope`)).status).toBe(404);
  });

  it('runs a reply through the API to its end: pause for write_file, confirm, stored as the events replay', async () => {
    const agents = (await (await api('/agents')).json()) as { agents: Array<{ id: string }> };
    expect(agents.agents.map((a) => a.id)).toEqual(['quickstart']);
    const created = await api('/agents/quickstart/sessions', { method: 'POST', body: '{}' });
    expect(created.status).toBe(201);
    const { sessionId } = (await created.json()) as SessionView;

    const first = await streamReply(sessionId, DEMO_TASK);
    expect(first[0]).toMatchObject({ type: 'RUN_START' });
    expect(first.at(-1)).toMatchObject({ type: 'RUN_END', status: 'paused' });
    const paused = (await (await api(`/agents/quickstart/sessions/${sessionId}`)).json()) as SessionView;
    expect(paused.status).toBe('paused');
    const [call] = paused.awaiting;
    expect(call).toMatchObject({ name: 'write_file', state: 'asking' });

    const second = await streamReply(sessionId, {
      type: 'USER_CONFIRM_RESULT',
      confirmResults: [{ confirmed: true, toolCall: { id: call!.id, name: call!.name, input: call!.input } }],
    });
    expect(second.at(-1)).toMatchObject({ type: 'RUN_END', status: 'ended' });

    const { messages } = (await (await api(`/agents/quickstart/sessions/${sessionId}/messages`)).json()) as {
      messages: Msg[];
    };
    const stored = messages.at(-1)!;
    expect(stored.finishedReason).toBe('completed');
    const agentEvents = [...first, ...second].filter((e) => !e.type.startsWith('RUN_')) as Array<
      AgentEvent | InputEvent
    >;
    expect(replayEvents(agentEvents)).toEqual(stored);
    expect(await readFile(join(playground.demoDir, 'sandbox', 'summary.md'), 'utf8')).toMatch(
      /^# Summary of notes\.md\n\n- The release moves to Thursday\n/,
    );

    const list = (await (await api('/agents/quickstart/sessions')).json()) as {
      sessions: Array<{ sessionId: string }>;
    };
    expect(list.sessions.map((s) => s.sessionId)).toContain(sessionId);
    expect((await api(`/agents/quickstart/sessions/${sessionId}`, { method: 'DELETE' })).status).toBe(204);
    expect((await api(`/agents/quickstart/sessions/${sessionId}`)).status).toBe(404);
  });

  it('drains and exits with 0 on SIGTERM', async () => {
    expect(await playground.stop()).toBe(0);
  });
});
