// A consumer of the published packages, outside the monorepo (scripts/pack-check.mjs installs the packed
// tarballs with npm next to this file, type-checks it strictly, compiles it with tsc and runs it with plain
// node). It uses every package the way its README shows.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Agent,
  AgentkitError,
  awaitingToolCalls,
  ConfigError,
  consoleLogger,
  defineTool,
  getText,
  userConfirmResult,
  VersionConflictError,
} from '@agentkit/core';
import { toProviderTurns } from '@agentkit/core/model';
import { nextSessionSummary } from '@agentkit/core/store';
import { ScriptedModel, toolCallChunk } from '@agentkit/core/testing';
import { contextPlugin } from '@agentkit/context';
import { injection } from '@agentkit/injection';
import { createGoogleModel } from '@agentkit/model-google';
import { createOpenAIModel } from '@agentkit/model-openai';
import { FileSessionStore } from '@agentkit/storage-fs';
import { RedisStorage } from '@agentkit/storage-redis';
import { structuredOutput } from '@agentkit/structured-output';
import { tasks } from '@agentkit/tasks';
import { z } from 'zod';

const deploy = defineTool({
  name: 'deploy',
  description: 'Deploy a service',
  inputSchema: z.object({ service: z.string() }),
  needsConfirmation: true,
  execute: ({ service }) => `deployed ${service}`,
});
const Report = z.object({ service: z.string(), ok: z.boolean() });
const model = new ScriptedModel([
  [toolCallChunk('TaskCreate', { subject: 'Deploy billing', description: 'Ship it' })],
  [toolCallChunk('deploy', { service: 'billing' })],
  [toolCallChunk('GenerateStructuredOutput', { service: 'billing', ok: true })],
]);
const build = (state?: string) =>
  new Agent({
    name: 'ops',
    model,
    tools: [deploy],
    plugins: [injection({ timezone: 'UTC' }), tasks(), contextPlugin(), structuredOutput()],
    state,
    logger: consoleLogger('warn'),
  });

const directory = await mkdtemp(join(tmpdir(), 'agentkit-consumer-'));
try {
  const store = new FileSessionStore({ directory });
  const agent = build();
  const types = new Set<string>();
  for await (const event of agent.replyStream('Deploy billing and report.', { structuredSchema: Report }))
    types.add(event.type);
  assert.ok(types.has('REQUIRE_USER_CONFIRM'), 'the reply pauses for the confirmation');
  await store.upsertSession('u', 'ops', 's', { state: agent.state, expectedVersion: 0 });

  // Another "process": the state alone resumes the reply.
  const record = await store.getSession('u', 'ops', 's');
  assert.ok(record);
  const resumed = build(JSON.stringify(record.state));
  const answers = awaitingToolCalls(resumed.state).map((toolCall) => ({ confirmed: true, toolCall }));
  const msg = await resumed.reply(userConfirmResult(answers));
  assert.equal(msg.finishedReason, 'completed');
  assert.deepEqual(msg.structuredOutput, { service: 'billing', ok: true });
  assert.match(getText(msg) ?? '', /structured output/);
  await store.updateSessionState('u', 'ops', 's', resumed.state, { expectedVersion: record.version });
  const stale = await store
    .updateSessionState('u', 'ops', 's', resumed.state, { expectedVersion: record.version })
    .catch((error: unknown) => error);
  assert.ok(VersionConflictError.isInstance(stale) && !ConfigError.isInstance(stale));

  // Adapters and the Redis store build without a network (they connect on first use).
  assert.equal(createOpenAIModel({ model: 'gpt-4.1-mini', apiKey: 'sk-test' }).name, 'gpt-4.1-mini');
  assert.equal(createGoogleModel({ model: 'gemini-2.5-flash', apiKey: 'k' }).contextSize > 0, true);
  await new RedisStorage({ url: 'redis://127.0.0.1:6379' }).close();
  assert.ok(typeof toProviderTurns === 'function' && typeof nextSessionSummary === 'function');
  const badTool = (() => {
    try {
      return (
        defineTool({ name: '', description: '', inputSchema: { type: 'object' } }) &&
        new Agent({ name: '', model })
      );
    } catch (error) {
      return error;
    }
  })();
  assert.ok(AgentkitError.isInstance(badTool) && ConfigError.isInstance(badTool));
  console.log('consumer: all packages work');
} finally {
  await rm(directory, { recursive: true, force: true });
}
