import { Agent, type AgentState } from '@agentkit/core';
import { RedisStorage } from '@agentkit/storage-redis';
import { Redis } from 'ioredis';
import { performance } from 'node:perf_hooks';
import { quantile } from './stats';
import { stepChunks, ZeroLatencyModel } from './subjects/zero-latency-model';
import { ToolCycle, turnText } from './workload';
import { defineTool } from '@agentkit/core';
import { z } from 'zod';

/** A real session of `messages` messages: user turns, each answered with one tool call and a text. */
export async function sessionState(messages: number): Promise<AgentState> {
  const cycle = new ToolCycle(1);
  const add = defineTool({
    name: 'add',
    description: 'Add two numbers.',
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    execute: ({ a, b }) => String(a + b),
  });
  const agent = new Agent({
    name: 'bench',
    model: new ZeroLatencyModel(() => stepChunks(cycle.next())),
    tools: [add],
  });
  for (let t = 1; agent.state.context.length < messages; t++) await agent.reply(turnText(t));
  return JSON.parse(JSON.stringify(agent.state)) as AgentState;
}

export const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * S7: `RedisStorage` save (`updateSessionState` with the expected version) + load (`getSession`) of a
 * session vs raw ioredis SET + GET of the same JSON (serialised and parsed in the loop too), and vs raw
 * SET + GET of a ready string. Interleaved per repetition, one connection each.
 */
export async function redisBench(messages: number, reps: number): Promise<Record<string, number>> {
  const state = await sessionState(messages);
  const prefix = `agentkit-bench:${process.pid}:`;
  const storage = new RedisStorage({ url, keyPrefix: prefix });
  const raw = new Redis(url);
  const ids = ['user', 'bench', 'session'] as const;
  const rawKey = `${prefix}raw`;
  const bytes = JSON.stringify(state);
  try {
    let version = (await storage.upsertSession(...ids, { state, expectedVersion: 0 })).version;
    const kit: number[] = [];
    const json: number[] = [];
    const str: number[] = [];
    const runKit = async () => {
      const t0 = performance.now();
      await storage.updateSessionState(...ids, state, { expectedVersion: version });
      const record = await storage.getSession(...ids);
      kit.push(performance.now() - t0);
      if (!record || record.state.context.length !== state.context.length)
        throw new Error('S7: lost messages');
      version = record.version;
    };
    const runJson = async () => {
      const t0 = performance.now();
      await raw.set(rawKey, JSON.stringify(state));
      const loaded = JSON.parse((await raw.get(rawKey))!) as AgentState;
      json.push(performance.now() - t0);
      if (loaded.context.length !== state.context.length) throw new Error('S7: lost messages');
    };
    const runStr = async () => {
      const t0 = performance.now();
      await raw.set(rawKey, bytes);
      const loaded = await raw.get(rawKey);
      str.push(performance.now() - t0);
      if (loaded?.length !== bytes.length) throw new Error('S7: lost bytes');
    };
    const order = [runKit, runJson, runStr];
    for (let i = 0; i < 50; i++) for (const run of order) await run(); // warm-up
    kit.length = json.length = str.length = 0;
    for (let i = 0; i < reps; i++) for (let j = 0; j < 3; j++) await order[(i + j) % 3]!();
    const us = (v: number[], p: number) => quantile(v, p) * 1000;
    return {
      bytes: Buffer.byteLength(bytes),
      messages: state.context.length,
      kitP50: us(kit, 0.5),
      kitP99: us(kit, 0.99),
      jsonP50: us(json, 0.5),
      jsonP99: us(json, 0.99),
      strP50: us(str, 0.5),
      strP99: us(str, 0.99),
    };
  } finally {
    await storage.deleteSession(...ids).catch(() => {});
    await raw.del(rawKey).catch(() => {});
    await storage.close();
    raw.disconnect();
  }
}
