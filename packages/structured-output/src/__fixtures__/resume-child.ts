// Runs in a fresh Node process: loads a paused agent state from a file, resumes the reply WITHOUT a
// schema (only the JSON Schema stored in the state is left), and writes the outcome to another file.
// Usage: tsx resume-child.ts <state.json> <out.json>
import { readFileSync, writeFileSync } from 'node:fs';
import { Agent, defineTool, userConfirmResult, type ToolCallBlock } from '@agentkit/core';
import { ScriptedModel, toolCallChunk } from '@agentkit/core/testing';
import { structuredOutput } from '../index';

const [statePath, outPath] = process.argv.slice(2) as [string, string];
const state = JSON.parse(readFileSync(statePath, 'utf8'));
const approve = defineTool({
  name: 'approve',
  description: 'Needs the user to confirm.',
  inputSchema: { type: 'object', properties: {} },
  needsConfirmation: true,
  execute: () => 'approved',
});
const model = new ScriptedModel([
  [toolCallChunk('GenerateStructuredOutput', { city: 'Hangzhou', extra: 'kept' }, 'call_so')],
]);
const agent = new Agent({ name: 'assistant', model, tools: [approve], plugins: [structuredOutput()], state });
const paused = state.context
  .at(-1)
  .content.find((b: ToolCallBlock) => b.type === 'tool_call' && b.state === 'asking');
const result = await agent.reply(userConfirmResult([{ confirmed: true, toolCall: paused }]));
writeFileSync(outPath, JSON.stringify({ result, requests: model.requests, state: agent.state }));
