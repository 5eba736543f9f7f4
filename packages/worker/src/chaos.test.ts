import { type AgentEvent, type Msg, replayEvents } from '@agentkit/core';
import type { LogEvent } from '@agentkit/server';
import { readSse } from '@agentkit/server/testing';
import { checkDeploys } from '@agentkit/test-fixtures/chaos';
import { Queue } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { startProcess, type TestProcess } from '../test/processes';
import { REDIS_URL, deleteByPrefix, keysByPrefix, uniquePrefix } from '@agentkit/test-redis';
import { FAST, openShared } from '../test/setup';
import { as } from '@agentkit/test-fixtures';
import { keysOf, type WorldConfig } from '../test/world';
import { bullConnection } from './redis-connection';

const SESSIONS = Number(process.env.CHAOS_SESSIONS ?? 100);
const TURNS = Number(process.env.CHAOS_TURNS ?? 5);
const WORKERS = 3;

/** What a client saw of one turn: the events of its SSE response. */
interface Turn {
  session: string;
  replyId: string;
  events: LogEvent[];
  /** 409 answers before the request went through (the previous run was just ending). */
  busy: number;
}

/** A client of one session: its turns one after another, each followed over SSE to its RUN_END. */
async function client(base: string, session: string, stopped: AbortSignal): Promise<Turn[]> {
  const user = as('chaos', base);
  const turns: Turn[] = [];
  for (let t = 0; t < TURNS && !stopped.aborted; t++) {
    const replyId = `${session}-t${t}`;
    let busy = 0;
    for (;;) {
      const res = await user(`/agents/ops/sessions/${session}/replies`, {
        method: 'POST',
        headers: { Accept: 'text/event-stream' },
        body: JSON.stringify({ input: `turn ${t}`, replyId }),
      });
      if (res.status === 409) {
        busy++;
        await res.body?.cancel();
        await new Promise((r) => setTimeout(r, 20 + Math.random() * 30));
        continue;
      }
      if (res.status !== 200) throw new Error(`${replyId}: HTTP ${res.status} ${await res.text()}`);
      turns.push({ session, replyId, events: (await readSse(res)).messages.map((m) => m.event), busy });
      break;
    }
  }
  return turns;
}

describe('chaos: one API process, three worker processes, kill -9 every few seconds', () => {
  it(`${SESSIONS} sessions × ${TURNS} turns: every reply once, every stream as stored, every deploy at most once`, async () => {
    const config: WorldConfig = { prefix: uniquePrefix('chaos'), modelMs: [20, 50], deployMs: 30 };
    const keys = keysOf(config);
    const shared = openShared(config);
    // Few slots per worker, so the run lasts long enough for many kills.
    const workerOptions = { ...FAST, concurrency: 4 };
    const api = await startProcess('api-process.ts', config);
    const workers = new Set<TestProcess>();
    const startWorker = async () => {
      const p = await startProcess('worker-process.ts', config, workerOptions);
      workers.add(p);
      p.child.once('exit', () => workers.delete(p));
    };
    await Promise.all(Array.from({ length: WORKERS }, startWorker));
    const started = Date.now();
    const done = new AbortController();
    let kills = 0;
    // The supervisor: every 1–2 s, kill -9 a random worker and start another (it takes a second or two
    // to start: meanwhile the others carry on).
    const restarts: Promise<void>[] = [];
    const supervisor = (async () => {
      while (!done.signal.aborted) {
        await new Promise((r) => setTimeout(r, 1000 + Math.random() * 1000));
        if (done.signal.aborted) break;
        const victims = [...workers];
        const victim = victims[Math.floor(Math.random() * victims.length)];
        if (!victim) continue;
        await victim.kill();
        kills++;
        restarts.push(startWorker());
      }
      await Promise.all(restarts);
    })();
    const deadline = setTimeout(() => done.abort(), 150_000);
    let turns: Turn[] = [];
    try {
      turns = (
        await Promise.all(Array.from({ length: SESSIONS }, (_, i) => client(api.line, `s${i}`, done.signal)))
      ).flat();
    } finally {
      clearTimeout(deadline);
      done.abort();
      await supervisor;
    }
    const seconds = (Date.now() - started) / 1000;

    try {
      expect(turns).toHaveLength(SESSIONS * TURNS);
      let takeovers = 0;
      let deploys = 0;
      let uncertain = 0;
      const storedCalls = new Set<string>();
      for (let i = 0; i < SESSIONS; i++) {
        const record = await shared.store.getSession('chaos', 'ops', `s${i}`);
        const replies = record!.state.context.filter((m: Msg) => m.role === 'assistant');
        // Every reply exactly once, in order, completed.
        expect(replies.map((m) => m.id)).toEqual(Array.from({ length: TURNS }, (_, t) => `s${i}-t${t}`));
        for (const reply of replies) expect(reply.finishedReason, reply.id).toBe('completed');
        const checked = await checkDeploys(replies, async (id) =>
          Number((await shared.book.get(`${keys.book}:exec:${id}`)) ?? 0),
        );
        for (const id of checked.deploys) storedCalls.add(id);
        deploys += checked.deploys.length;
        uncertain += checked.uncertain;
      }
      // No deploy ran that the store does not know of.
      const executed = (await keysByPrefix(shared.book, `${keys.book}:exec:`)).map((k) =>
        k.slice(`${keys.book}:exec:`.length),
      );
      expect(executed.filter((id) => !storedCalls.has(id))).toEqual([]);
      // Every client's stream: one RUN_END (ended), and its events reduce to the stored message.
      for (const turn of turns) {
        const ends = turn.events.filter((e) => e.type === 'RUN_END');
        expect(ends, turn.replyId).toMatchObject([{ status: 'ended', replyId: turn.replyId }]);
        takeovers += turn.events.filter((e) => e.type === 'RUN_START').length - 1;
        const record = await shared.store.getSession('chaos', 'ops', turn.session);
        const stored = record!.state.context.find((m: Msg) => m.id === turn.replyId);
        const agentEvents = turn.events.filter((e) => !e.type.startsWith('RUN_')) as AgentEvent[];
        expect(replayEvents(agentEvents), turn.replyId).toEqual(stored);
      }
      expect(
        Number((await shared.book.get(`${keys.book}:overlap`)) ?? 0),
        'a session in two workers at once',
      ).toBe(0);
      // Nothing left in the queue (the last job completes just after its RUN_END) nor in the lines.
      const queue = new Queue('agentkit-replies', {
        connection: bullConnection({ url: REDIS_URL }),
        prefix: keys.bull,
      });
      try {
        let counts: Record<string, number> = {};
        for (const until = Date.now() + 20_000; Date.now() < until; ) {
          counts = await queue.getJobCounts(
            'wait',
            'delayed',
            'active',
            'prioritized',
            'failed',
            'completed',
          );
          if (counts.completed === SESSIONS * TURNS) break;
          await new Promise((r) => setTimeout(r, 100));
        }
        expect(counts).toEqual({
          wait: 0,
          delayed: 0,
          active: 0,
          prioritized: 0,
          failed: 0,
          completed: SESSIONS * TURNS,
        });
      } finally {
        await queue.close();
      }
      const lines = await keysByPrefix(shared.book, `${keys.lines}:`);
      for (const key of lines.filter((k) => k.includes(':line:')))
        expect(await shared.book.llen(key)).toBe(0);
      const busy = turns.reduce((n, t) => n + t.busy, 0);
      console.log(
        `chaos: ${turns.length} replies (${SESSIONS} sessions × ${TURNS} turns) in ${seconds.toFixed(1)} s, ` +
          `${kills} kills, ${takeovers} takeovers, ${deploys} deploys (${uncertain} cut short by a kill), ` +
          `${busy} 409 retries, duplicates 0`,
      );
      expect(kills).toBeGreaterThanOrEqual(5);
      expect(takeovers).toBeGreaterThan(0);
    } finally {
      await Promise.all([...workers].map((w) => w.stop(10_000)));
      await api.stop(10_000);
      await deleteByPrefix(shared.book, config.prefix);
      await shared.close();
    }
  }, 240_000);
});
