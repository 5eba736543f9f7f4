import { performance } from 'node:perf_hooks';
import {
  Agent,
  type AgentState,
  defineTool,
  InMemorySessionStore,
  runSession,
  type SessionStore,
} from '@agentkit/core';
import { RedisStorage } from '@agentkit/storage-redis';
import { Redis } from 'ioredis';
import { z } from 'zod';
import type { CheckpointJob } from './checkpoint-job';
import { forAtLeast } from './for-at-least';
import { url } from './redis-bench';
import { median } from './stats';
import { stepChunks, ZeroLatencyModel } from './subjects/zero-latency-model';
import { addDescription, ToolCycle } from './workload';

// Not idempotent (the default): every call is checkpointed before it runs and after its result.
const add = defineTool({
  name: 'add',
  description: addDescription,
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});

const silent = { warn() {}, error() {} };

/** Counts and times every call a reply makes to the store (the instrumented pass only). */
function countingStore(store: SessionStore, calls: Map<string, { n: number; ms: number }>): SessionStore {
  return new Proxy(store, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const t0 = performance.now();
        try {
          return await value.apply(target, args);
        } finally {
          const c = calls.get(String(name)) ?? { n: 0, ms: 0 };
          c.n++;
          c.ms += performance.now() - t0;
          calls.set(String(name), c);
        }
      };
    },
  });
}

/**
 * CKPT (issue 12): S1 — a reply of `k` tool calls and an answer, a fresh agent per reply — run through
 * `runSession` (lease, load or create, a fenced checkpoint before and after every tool call, save,
 * release) with `InMemorySessionStore` or `RedisStorage`, or as plain `agent.reply` (`none`, today's S1).
 * Each reply is a new session, so every reply saves the same amount. Time-based warm-up and measure as
 * in S1; then an instrumented pass (half as long, at least 10 replies) counts and times the store calls.
 */
export async function checkpointBench(job: CheckpointJob): Promise<Record<string, number>> {
  const cycle = new ToolCycle(job.k);
  const model = new ZeroLatencyModel(() => stepChunks(cycle.next()));
  const build = (state?: AgentState) =>
    new Agent({
      name: 'bench',
      systemPrompt: 'You are a calculator.',
      model,
      tools: [add],
      maxIters: job.k + 2,
      logger: silent,
      ...(state ? { state } : {}),
    });
  const prefix = `agentkit-bench:ckpt:${process.pid}:`;
  const base =
    job.store === 'redis'
      ? new RedisStorage({ url, keyPrefix: prefix })
      : job.store === 'memory'
        ? new InMemorySessionStore()
        : undefined;
  let n = 0;
  const replyWith = (store: SessionStore | undefined) => async () => {
    if (!store) {
      const msg = await build().reply('Add the numbers.');
      if (msg.finishedReason !== 'completed') throw new Error(`CKPT: reply ended ${msg.finishedReason}`);
      return;
    }
    const { message } = await runSession({
      store,
      session: { userId: 'bench', agentId: 'bench', sessionId: `s${n++}` },
      agent: (state) => build(state),
      input: 'Add the numbers.',
    });
    if (message.finishedReason !== 'completed')
      throw new Error(`CKPT: reply ended ${message.finishedReason}: ${JSON.stringify(message.error)}`);
  };
  try {
    const reply = replyWith(base);
    await forAtLeast(job.warmupMs, 3, reply);
    const times: number[] = [];
    await forAtLeast(job.measureMs, 5, async () => {
      const t0 = performance.now();
      await reply();
      times.push(performance.now() - t0);
    });
    const out: Record<string, number> = {
      usPerIter: (median(times) * 1000) / (job.k + 1),
      msPerReply: median(times),
      replies: times.length,
    };
    if (base) {
      // Where a reply's time goes: store calls per reply and the time spent waiting for them.
      const calls = new Map<string, { n: number; ms: number }>();
      const counted = replyWith(countingStore(base, calls));
      let reps = 0;
      const t0 = performance.now();
      await forAtLeast(job.measureMs / 2, 10, async () => {
        await counted();
        reps++;
      });
      const total = performance.now() - t0;
      let storeMs = 0;
      let storeCalls = 0;
      for (const [name, c] of calls) {
        out[`calls.${name}`] = c.n / reps;
        out[`us.${name}`] = (c.ms * 1000) / c.n;
        storeMs += c.ms;
        storeCalls += c.n;
      }
      out.storeCallsPerReply = storeCalls / reps;
      // Share of the wall time with a store call in flight (the checkpointer never runs two at once).
      out.storeShare = storeMs / total;
    }
    return out;
  } finally {
    if (base instanceof RedisStorage) {
      // Sessions and their lease hashes (which outlive them by design): the benchmark leaves nothing.
      const redis = new Redis(url);
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
        if (keys.length) await redis.unlink(...keys);
        cursor = next;
      } while (cursor !== '0');
      redis.disconnect();
      await base.close();
    }
  }
}
