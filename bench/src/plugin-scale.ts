import { Agent, defineTool, type Plugin } from '@agentkit/core';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { median } from './stats';
import { allPlugins } from './subjects/agentkit-plugins';
import { stepChunks, ZeroLatencyModel } from './subjects/zero-latency-model';
import { ToolCycle, turnText } from './workload';

/** Wraps every hook of `plugin` so the time spent in it is added to `spent[plugin.name]`. */
function timeHooks(plugin: Plugin, spent: Record<string, number>): void {
  const hooks = plugin.hooks as Record<string, unknown> | undefined;
  if (!hooks) return;
  spent[plugin.name] = 0;
  for (const [name, hook] of Object.entries(hooks)) {
    const wrap = (fn: (event: unknown) => unknown) => (event: unknown) => {
      const t0 = performance.now();
      const settle = () => {
        spent[plugin.name]! += performance.now() - t0;
      };
      const out = fn(event);
      if (out instanceof Promise) return out.finally(settle);
      settle();
      return out;
    };
    if (typeof hook === 'function') hooks[name] = wrap(hook as (event: unknown) => unknown);
    else if (hook && typeof hook === 'object' && 'handler' in hook)
      hooks[name] = { ...hook, handler: wrap((hook as { handler: (event: unknown) => unknown }).handler) };
  }
}

/**
 * Issue 6 "Scale": the time each plugin's hooks take per model call at the start of a long session
 * (turns 1..window) and at its end (the last `window` turns), with injection + context +
 * structured-output installed, on a model whose context is large enough that nothing is compressed.
 */
export async function pluginScale(turns: number, window: number): Promise<Record<string, number>> {
  await runTurns(30, {}); // warm-up on another agent, discarded
  const spent: Record<string, number> = {};
  const { agent, perTurn } = await runTurns(turns, spent);
  const out: Record<string, number> = { turns, contextMessages: agent.state.context.length };
  const callsPerTurn = 2; // one tool call + one answer
  for (const name of Object.keys(perTurn[0]!)) {
    const early = median(perTurn.slice(0, window).map((r) => r[name]!)) * 1000;
    const late = median(perTurn.slice(-window).map((r) => r[name]!)) * 1000;
    const per = name === 'total' ? 1 : callsPerTurn;
    out[`${name}.early`] = early / per;
    out[`${name}.late`] = late / per;
  }
  return out;
}

async function runTurns(turns: number, spent: Record<string, number>) {
  const plugins = allPlugins();
  for (const p of plugins) timeHooks(p, spent);
  const cycle = new ToolCycle(1);
  const add = defineTool({
    name: 'add',
    description: 'Add two numbers.',
    inputSchema: z.object({ a: z.number(), b: z.number() }),
    execute: ({ a, b }) => String(a + b),
  });
  const agent = new Agent({
    name: 'bench',
    model: new ZeroLatencyModel(() => stepChunks(cycle.next()), 100_000_000),
    tools: [add],
    plugins,
    logger: { warn() {}, error() {} },
  });
  const perTurn: Array<Record<string, number>> = [];
  for (let t = 1; t <= turns; t++) {
    const before = { ...spent };
    const t0 = performance.now();
    const msg = await agent.reply(turnText(t));
    const total = performance.now() - t0;
    if (msg.finishedReason !== 'completed')
      throw new Error(`plugin scale: turn ${t} ended ${msg.finishedReason}`);
    const row: Record<string, number> = { total };
    for (const name of Object.keys(spent)) row[name] = spent[name]! - before[name]!;
    perTurn.push(row);
  }
  return { agent, perTurn };
}
