import { describe, expect, it } from 'vitest';
import { Agent } from './agent';
import { AgentkitError } from './errors/agentkit-error';
import { StoreConnectionError } from './errors/store-errors';
import { type AgentEvent, userConfirmResult } from './events';
import { InMemorySessionStore } from './in-memory-session-store';
import { getText } from './msg';
import { awaitingToolCalls } from './reply-input';
import { runSession } from './run-session';
import { SessionLease } from './session-lease';
import type { SessionStore } from './session-store';
import { sleep } from './sleep';
import type { AgentState } from './state';
import { ScriptedModel, textChunks, toolCallChunk } from './testing/scripted-model';
import { defineTool } from './define-tool';

const session = { userId: 'u', agentId: 'ops', sessionId: 's1' };

function deployTool(runs: string[], opts: { delayMs?: number; confirm?: boolean } = {}) {
  return defineTool({
    name: 'deploy',
    description: 'deploy a service',
    inputSchema: { type: 'object', properties: { service: { type: 'string' } }, required: ['service'] },
    needsConfirmation: opts.confirm ?? false,
    execute: async ({ service }: { service: string }, ctx) => {
      if (opts.delayMs) await sleep(opts.delayMs, ctx.signal);
      runs.push(service);
      return `deployed ${service}`;
    },
  });
}

/** An agent factory with a model that deploys once, then answers. */
function opsAgent(runs: string[], opts: { delayMs?: number; confirm?: boolean } = {}) {
  return (state: AgentState) =>
    new Agent({
      name: 'ops',
      model: new ScriptedModel([
        [toolCallChunk('deploy', { service: 'billing' }, 'c1')],
        textChunks('Deployed.'),
      ]),
      tools: [deployTool(runs, opts)],
      state,
    });
}

describe('runSession', () => {
  it('creates the session, replies under a lease, saves and releases it', async () => {
    const store = new InMemorySessionStore();
    const runs: string[] = [];
    const events: AgentEvent[] = [];
    const { message, record, outcome } = await runSession({
      store,
      session,
      agent: opsAgent(runs),
      input: 'Deploy billing.',
      metadata: { title: 'ops' },
      onEvent: (e) => void events.push(e),
    });
    expect(outcome).toBe('replied');
    expect(getText(message)).toBe('Deployed.');
    expect(runs).toEqual(['billing']);
    expect(record.metadata).toEqual({ title: 'ops' });
    // Created, the accepted input, a checkpoint before and after the tool, then the final save.
    expect(record.version).toBe(5);
    expect((await store.getSession('u', 'ops', 's1'))?.state).toEqual(record.state);
    expect(await store.getLease('u', 'ops', 's1')).toBeNull();
    expect(events[0]?.type).toBe('REPLY_START');
    expect(events.at(-1)?.type).toBe('REPLY_END');
  });

  it('fails with SessionBusyError before building anything while another holder runs the session', async () => {
    const store = new InMemorySessionStore();
    await using _held = await SessionLease.acquire(store, session, { owner: 'worker-7' });
    let built = false;
    await expect(
      runSession({
        store,
        session,
        agent: (state) => {
          built = true;
          return opsAgent([])(state);
        },
        input: 'hi',
      }),
    ).rejects.toMatchObject({ code: 'SESSION_BUSY', owner: 'worker-7' });
    expect(built).toBe(false);
  });

  it('runs a confirmed tool exactly once when five callers resume the same pause at once', async () => {
    const store = new InMemorySessionStore();
    const runs: string[] = [];
    const paused = await runSession({
      store,
      session,
      agent: opsAgent(runs, { confirm: true }),
      input: 'Deploy.',
    });
    expect(paused.message.finishedReason).toBeNull();
    const [call] = awaitingToolCalls(paused.record.state);
    const confirm = userConfirmResult([{ confirmed: true, toolCall: call! }]);
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () =>
        runSession({ store, session, agent: opsAgent(runs, { confirm: true, delayMs: 20 }), input: confirm }),
      ),
    );
    expect(runs).toEqual(['billing']);
    const ok = results.filter((r) => r.status === 'fulfilled');
    expect(ok).toHaveLength(1);
    for (const r of results)
      if (r.status === 'rejected') {
        expect(AgentkitError.isInstance(r.reason)).toBe(true);
        expect((r.reason as AgentkitError).code).toMatch(/^(SESSION_BUSY|RESUME_MISMATCH)$/);
      }
  });

  it('never replies twice for the same replyId', async () => {
    const store = new InMemorySessionStore();
    const runs: string[] = [];
    const first = await runSession({
      store,
      session,
      agent: opsAgent(runs),
      input: 'Deploy.',
      replyId: 'req-1',
    });
    expect(first.message.id).toBe('req-1');
    const again = await runSession({
      store,
      session,
      agent: opsAgent(runs),
      input: 'Deploy.',
      replyId: 'req-1',
    });
    expect(again.outcome).toBe('done');
    expect(again.message).toEqual(first.message);
    expect(again.record.version).toBe(first.record.version);
    expect(runs).toEqual(['billing']);
  });

  it('interrupts the reply and throws LeaseLostError when the lease cannot be kept; the taker’s save stands', async () => {
    const store = new InMemorySessionStore();
    await store.upsertSession('u', 'ops', 's1');
    const cut: SessionStore = Object.create(store);
    cut.renewLease = () => Promise.reject(new StoreConnectionError('network partition'));
    const runs: string[] = [];
    const failure = runSession({
      store: cut,
      session,
      agent: opsAgent(runs, { delayMs: 2_000 }),
      input: 'Deploy.',
      lease: { ttlMs: 200 },
    }).then(
      () => null,
      (error: unknown) => error,
    );
    await sleep(350);
    const taker = await store.acquireLease('u', 'ops', 's1', { owner: 'taker' });
    const taken = await store.upsertSession('u', 'ops', 's1', {
      metadata: { by: 'taker' },
      leaseToken: taker.token,
    });
    expect(await failure).toMatchObject({ code: 'LEASE_LOST' });
    expect(runs).toEqual([]);
    const stored = await store.getSession('u', 'ops', 's1');
    expect(stored?.version).toBe(taken.version);
    expect(stored?.metadata).toEqual({ by: 'taker' });
  });

  it('stops and saves the reply when the event consumer fails, then rethrows its error', async () => {
    const store = new InMemorySessionStore();
    const runs: string[] = [];
    await expect(
      runSession({
        store,
        session,
        agent: opsAgent(runs),
        input: 'Deploy.',
        onEvent: (e) => {
          if (e.type === 'TOOL_CALL_START') throw new Error('log unavailable');
        },
      }),
    ).rejects.toThrow('log unavailable');
    const stored = await store.getSession('u', 'ops', 's1');
    const reply = stored!.state.context.at(-1)!;
    expect(reply.finishedReason).toBe('interrupted');
    expect(await store.getLease('u', 'ops', 's1')).toBeNull();
  });

  it('refuses an agent factory that ignores the session state, before replying', async () => {
    const store = new InMemorySessionStore();
    await runSession({ store, session, agent: opsAgent([]), input: 'Deploy.' });
    await expect(
      runSession({
        store,
        session,
        agent: () => new Agent({ name: 'ops', model: new ScriptedModel([textChunks('hi')]) }),
        input: 'again',
      }),
    ).rejects.toMatchObject({ code: 'CONFIG' });
    expect((await store.getSession('u', 'ops', 's1'))?.state.context).toHaveLength(2);
  });
});

describe('runSession with suspendSignal', () => {
  it('saves the accepted input before the first model call answers: a process killed then loses nothing', async () => {
    const store = new InMemorySessionStore();
    const stop = new AbortController();
    const running = runSession({
      store,
      session,
      agent: (state) =>
        new Agent({
          name: 'ops',
          // The model takes long enough for the process to die during its first call.
          model: new ScriptedModel([{ chunks: textChunks('Hello.'), delayMs: 60_000 }]),
          state,
        }),
      input: 'Remember this.',
      signal: stop.signal,
    });
    await sleep(50);
    const saved = await store.getSession('u', 'ops', 's1');
    expect(saved?.state.context.map((m) => [m.role, getText(m)])).toEqual([
      ['user', 'Remember this.'],
      ['assistant', null],
    ]);
    expect(saved?.state.context[1]?.finishedReason).toBeNull(); // unfinished: the next run continues it
    stop.abort();
    await running.catch(() => {});
  });

  it('stops at a safe point, saves the reply unfinished, and a later run continues it', async () => {
    const store = new InMemorySessionStore();
    const runs: string[] = [];
    const suspend = new AbortController();
    const agent = (state: AgentState) =>
      new Agent({
        name: 'ops',
        model: new ScriptedModel([
          [toolCallChunk('deploy', { service: 'billing' }, 'c1')],
          [toolCallChunk('deploy', { service: 'search' }, 'c2')],
          textChunks('Both deployed.'),
        ]),
        tools: [
          defineTool({
            name: 'deploy',
            description: 'deploy',
            inputSchema: { type: 'object', properties: { service: { type: 'string' } } },
            execute: ({ service }: { service: string }) => {
              runs.push(service);
              suspend.abort(); // shutdown begins while the first tool runs
              return `deployed ${service}`;
            },
          }),
        ],
        state,
      });
    const first = await runSession({
      store,
      session,
      agent,
      input: 'Deploy both.',
      suspendSignal: suspend.signal,
    });
    expect(first.outcome).toBe('suspended');
    expect(first.message.finishedReason).toBeNull();
    expect(runs).toEqual(['billing']);
    expect(await store.getLease('u', 'ops', 's1')).toBeNull();
    // The next run's model continues the script where a fresh process would: it is asked again.
    const second = await runSession({
      store,
      session,
      agent: (state) =>
        new Agent({
          name: 'ops',
          model: new ScriptedModel([
            [toolCallChunk('deploy', { service: 'search' }, 'c2')],
            textChunks('Both deployed.'),
          ]),
          tools: [deployTool(runs)],
          state,
        }),
      input: null,
    });
    expect(second.outcome).toBe('recovered');
    expect(second.message.id).toBe(first.message.id);
    expect(getText(second.message)).toBe('Both deployed.');
    expect(runs).toEqual(['billing', 'search']);
  });
});
