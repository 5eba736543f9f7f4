import { Agent, type AgentOptions, defineTool, type ModelChunk, type Plugin } from '@agentkit/core';
import { normalizeUsage } from '@agentkit/core/model';
import { z } from 'zod';
import { addDescription, questionText, streamDeltas, TextCycle, ToolCycle, turnText } from '../workload';
import type { Subject } from './subject';
import { stepChunks, ZeroLatencyModel } from './zero-latency-model';

const add = defineTool({
  name: 'add',
  description: addDescription,
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});

const silent = { warn() {}, error() {} };

/**
 * agentkit through its public API (`Agent.reply`, `Agent.replyStream`), consumed from the built
 * packages. `plugins` builds the plugin set installed on every agent (S6), fresh per agent.
 */
export function agentkitSubject(plugins: () => Plugin[] = () => []): Subject {
  const agent = (options: Omit<AgentOptions, 'name' | 'plugins' | 'logger'>) =>
    new Agent({
      name: 'bench',
      systemPrompt: 'You are a calculator.',
      plugins: plugins(),
      logger: silent,
      ...options,
    });
  return {
    async s1(k) {
      const cycle = new ToolCycle(k);
      const model = new ZeroLatencyModel(() => stepChunks(cycle.next()));
      return async () => {
        const msg = await agent({ model, tools: [add], maxIters: k + 2 }).reply('Add the numbers.');
        if (msg.finishedReason !== 'completed')
          throw new Error(`agentkit S1 ended ${msg.finishedReason}: ${JSON.stringify(msg.error)}`);
      };
    },
    async s2() {
      const cycle = new ToolCycle(1);
      const a = agent({ model: new ZeroLatencyModel(() => stepChunks(cycle.next())), tools: [add] });
      return async (turn) => {
        const msg = await a.reply(turnText(turn));
        if (msg.finishedReason !== 'completed')
          throw new Error(`agentkit S2 ended ${msg.finishedReason}: ${JSON.stringify(msg.error)}`);
      };
    },
    async s3(n) {
      const chunks: ModelChunk[] = streamDeltas(n).map((delta) => ({ type: 'text', delta }));
      chunks.push({ type: 'usage', usage: normalizeUsage({ inputTokens: 10, outputTokens: n }) });
      const model = new ZeroLatencyModel(() => chunks);
      return async () => {
        let count = 0;
        for await (const event of agent({ model }).replyStream('Tell me a long story.'))
          if ('type' in event && event.type === 'TEXT_BLOCK_DELTA') count++;
        return count;
      };
    },
    async s4() {
      const cycle = new TextCycle();
      const model = new ZeroLatencyModel(() => stepChunks({ kind: 'text', text: cycle.next() }));
      return async (session, turns) => {
        const a = agent({ model });
        for (let t = 0; t < turns; t++) await a.reply(questionText(session, t));
        return a.state;
      };
    },
  };
}
