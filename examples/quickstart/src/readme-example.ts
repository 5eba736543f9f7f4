// The example of the root README, kept here so CI typechecks it (it needs OPENAI_API_KEY and Redis to run).
import { Agent, awaitingToolCalls, defineTool, getText, userConfirmResult } from '@agentkit/core';
import { createOpenAIModel } from '@agentkit/model-openai';
import { injection } from '@agentkit/injection';
import { structuredOutput } from '@agentkit/structured-output';
import { RedisStorage } from '@agentkit/storage-redis';
import { z } from 'zod';

const deploy = defineTool({
  name: 'deploy',
  description: 'Deploy a service',
  inputSchema: z.object({ service: z.string() }),
  needsConfirmation: true, // the reply pauses until a human answers
  execute: async ({ service }) => `deployed ${service}`,
});

await using store = new RedisStorage({ url: process.env.REDIS_URL });
const record = await store.getSession('user-1', 'ops', 'session-1');
const agent = new Agent({
  name: 'ops',
  model: createOpenAIModel({ model: 'gpt-5-mini' }),
  tools: [deploy],
  plugins: [injection({ timezone: 'Europe/Berlin' }), structuredOutput()],
  state: record?.state,
});

let msg = await agent.reply('Deploy the billing service and report the result.', {
  structuredSchema: z.object({ service: z.string(), ok: z.boolean() }),
});
if (msg.finishedReason === null) {
  // Paused: save, ask a human (here or in another process), resume with the answer.
  const [call] = awaitingToolCalls(agent.state);
  msg = await agent.reply(userConfirmResult([{ confirmed: true, toolCall: call! }]));
}
console.log(msg.structuredOutput?.ok, getText(msg));
await store.upsertSession('user-1', 'ops', 'session-1', { state: agent.state });
