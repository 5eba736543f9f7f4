/**
 * Cost of a model call with `@agentkit/context` installed, at turn 10 vs turn 500 of one conversation.
 * The plugin counts the input before every model call; the kernel's counter counts only new messages, so a
 * long conversation must not make a call slower than an early one.
 *
 * Run: `pnpm -F @agentkit/context bench` (or import {@link measureTurnCost} from a bench suite).
 */
import { Agent, type ChatModel, type ModelChunk, type TokenCountInput } from '@agentkit/core';
import { TokenCounter } from '@agentkit/core';
import { contextPlugin } from '../src/index';

/** What {@link measureTurnCost} reports. */
export interface TurnCost {
  turns: number;
  /** Mean wall time of one reply (one model call) around turn 10 and at the last turns, in microseconds. */
  earlyMicros: number;
  lateMicros: number;
  /** Messages the model's token counter was asked to count, per reply, at turn 10 and at the last turn. */
  earlyCounted: number;
  lateCounted: number;
}

/** A model that answers at once and records nothing, so only the agent's and the plugin's work is measured. */
function instantModel(counted: { messages: number }): ChatModel {
  const plain = new TokenCounter();
  return {
    name: 'instant',
    contextSize: 100_000_000,
    countTokens(input: TokenCountInput) {
      counted.messages += input.messages.length;
      return plain.count(input);
    },
    async *stream(): AsyncIterable<ModelChunk> {
      yield { type: 'text', delta: 'ok' };
    },
  };
}

/**
 * Runs a conversation of `turns` replies and compares the cost of early and late model calls, with the
 * context plugin installed (or, with `withPlugin: false`, the bare agent as a baseline).
 */
export async function measureTurnCost(turns = 500, window = 10, withPlugin = true): Promise<TurnCost> {
  const counted = { messages: 0 };
  const plugins = withPlugin ? [contextPlugin()] : [];
  const agent = new Agent({ name: 'bench', model: instantModel(counted), plugins });
  const micros: number[] = [];
  const perReply: number[] = [];
  for (let turn = 1; turn <= turns; turn++) {
    const before = counted.messages;
    const start = process.hrtime.bigint();
    await agent.reply(`turn ${turn}: ${'some words of the user '.repeat(10)}`);
    micros.push(Number(process.hrtime.bigint() - start) / 1000);
    perReply.push(counted.messages - before);
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  return {
    turns,
    earlyMicros: mean(micros.slice(5, 5 + window)),
    lateMicros: mean(micros.slice(-window)),
    earlyCounted: perReply[9]!,
    lateCounted: perReply[turns - 1]!,
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await measureTurnCost(200); // warm-up (JIT)
  await measureTurnCost(200, 10, false);
  const rows = [
    ['with @agentkit/context', await measureTurnCost()],
    ['bare agent (baseline)', await measureTurnCost(500, 10, false)],
  ] as const;
  console.log('One model call per reply; mean of 10 replies; messages the token counter was asked to count.');
  for (const [label, r] of rows) {
    console.log(
      `${label.padEnd(24)} turn ~10: ${r.earlyMicros.toFixed(0).padStart(4)} µs (${r.earlyCounted} counted)   ` +
        `turn ~${r.turns}: ${r.lateMicros.toFixed(0).padStart(4)} µs (${r.lateCounted} counted)`,
    );
  }
}
