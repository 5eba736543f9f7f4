// One step of a paused-and-resumed conversation, run as its own Node process by cross-process.test.ts.
//   start  <redisUrl> <keyPrefix> <logFile>: reply until the agent pauses to confirm a tool call, save.
//   resume <redisUrl> <keyPrefix> <logFile>: load, confirm the paused call, finish the reply, save.
import { appendFileSync } from 'node:fs';
import {
  Agent,
  type ToolCallBlock,
  createAgentState,
  defineTool,
  getText,
  userConfirmResult,
} from '@agentkit/core';
import { ScriptedModel, textChunks, toolCallChunk } from '@agentkit/core/testing';
import { RedisStorage } from '../src/redis-storage';

const [mode, url, keyPrefix, logFile] = process.argv.slice(2) as [string, string, string, string];
const USER = 'user_123';
const AGENT = 'agent_456';
const SESSION = 'session_789';

const appendLine = defineTool<{ line: string }>({
  name: 'append_line',
  description: 'Append a line to the log file',
  inputSchema: { type: 'object', properties: { line: { type: 'string' } }, required: ['line'] },
  needsConfirmation: true,
  execute: ({ line }) => {
    appendFileSync(logFile, `${line}\n`);
    return `appended ${line}`;
  },
});

// Each process gets the model responses it will play: the first call in A, the second in B.
const model = new ScriptedModel(
  mode === 'start'
    ? [[toolCallChunk('append_line', { line: 'hello' }, 'call_1')]]
    : [textChunks('Appended the line.')],
);

await using storage = new RedisStorage({ url, keyPrefix });
const record = await storage.getSession(USER, AGENT, SESSION);
const agent = new Agent({
  name: 'Friday',
  systemPrompt: 'You are a helpful assistant.',
  model,
  tools: [appendLine],
  state: record?.state ?? createAgentState({ sessionId: SESSION }),
});

const msg =
  mode === 'start'
    ? await agent.reply('Append "hello" to the log.')
    : await agent.reply(
        userConfirmResult(
          agent.state.context
            .at(-1)!
            .content.filter((b): b is ToolCallBlock => b.type === 'tool_call' && b.state === 'asking')
            .map((call) => ({
              confirmed: true,
              toolCall: { id: call.id, name: call.name, input: call.input },
            })),
        ),
      );

const saved = record
  ? await storage.updateSessionState(USER, AGENT, SESSION, agent.state, { expectedVersion: record.version })
  : await storage.upsertSession(USER, AGENT, SESSION, { state: agent.state, expectedVersion: 0 });

process.stdout.write(
  JSON.stringify({
    pid: process.pid,
    finishedReason: msg.finishedReason,
    text: getText(msg),
    version: saved.version,
  }),
);
