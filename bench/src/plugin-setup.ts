import { Agent, type Plugin } from '@agentkit/core';
import { performance } from 'node:perf_hooks';
import { fullGc, median } from './stats';
import { allPlugins } from './subjects/agentkit-plugins';
import { stepChunks, ZeroLatencyModel } from './subjects/zero-latency-model';
import { questionText, TextCycle } from './workload';

/** The application's logger, shared by its agents as a server's is (here: silent). */
const silent = { warn() {}, error() {} };

/**
 * Without plugins; with the three plugins of S6 (injection, context, structured output) made fresh for
 * every agent, as S6 does; or with one set of those plugin instances shared by all agents.
 */
export type SetupSubject = 'agentkit' | 'agentkit+plugins' | 'agentkit+shared-plugins';

/**
 * Issue 13's plugin-setup bar: what an agent per live session costs. A server builds (or holds) an agent per
 * session, so (1) kB per agent held after `turns` turns of the S4 workload (the agent with its state and
 * plugins, heap delta after GC over `agents` agents), and (2) µs to build one: `new Agent(...)` with its
 * plugins made as the subject says (median over 200 batches of 200, measured first, on a small heap).
 */
export async function pluginSetup(
  subject: SetupSubject,
  agents: number,
  turns: number,
): Promise<Record<string, number>> {
  const cycle = new TextCycle();
  const model = new ZeroLatencyModel(() => stepChunks({ kind: 'text', text: cycle.next() }));
  const shared = allPlugins();
  const plugins: () => Plugin[] =
    subject === 'agentkit+plugins'
      ? allPlugins
      : subject === 'agentkit+shared-plugins'
        ? () => shared
        : () => [];
  const build = () =>
    new Agent({
      name: 'bench',
      systemPrompt: 'You are a calculator.',
      model,
      plugins: plugins(),
      logger: silent,
    });
  const session = async (s: number) => {
    const agent = build();
    for (let t = 0; t < turns; t++) await agent.reply(questionText(s, t));
    return agent;
  };

  // Build time first, on a small heap (holding hundreds of agents makes every collection slower).
  const batch = 200;
  const keep: Agent[] = new Array(batch);
  for (let r = 0; r < 50; r++) for (let i = 0; i < batch; i++) keep[i] = build(); // warm up
  const times: number[] = [];
  for (let r = 0; r < 200; r++) {
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) keep[i] = build();
    times.push(((performance.now() - t0) * 1000) / batch);
  }

  for (let s = 0; s < 20; s++) await session(-1 - s); // warm up, discarded
  await fullGc();
  const heap0 = process.memoryUsage().heapUsed;
  const held: Agent[] = [];
  for (let s = 0; s < agents; s++) held.push(await session(s));
  await fullGc();
  const kBPerAgent = (process.memoryUsage().heapUsed - heap0) / agents / 1024;
  if (held.length !== agents) throw new Error('lost agents');
  return { kBPerAgent, buildUs: median(times), held: held.length + keep.length };
}
