// One step of a paused-and-resumed conversation, run as its own Node process by cross-process.test.ts.
//   start  <redisUrl> <keyPrefix> <logFile>: reply until the agent pauses to confirm a tool call, save.
//   resume <redisUrl> <keyPrefix> <logFile>: load, confirm the paused call, finish the reply, save.
//   race   <redisUrl> <keyPrefix> <logFile>: print {event:'ready'}; on the stdin line 'go' take the
//          session's lease and print {event:'acquired'} or {event:'busy', …}; once acquired, on 'resume'
//          resume the paused reply under the lease, save fenced, release, print {event:'done', …}.
//   stall  <redisUrl> <keyPrefix>: take the lease (ttl 600 ms, renewed), print {event:'leased', token};
//          on the stdin line 'write' save a state under that lease and print {event:'written'} or
//          {event:'refused', code}, then whether the lease's signal was aborted.
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import {
  Agent,
  AgentkitError,
  SessionBusyError,
  SessionLease,
  type ToolCallBlock,
  createAgentState,
  defineTool,
  getText,
  userConfirmResult,
} from '@agentkit/core';
import { ScriptedModel, pausedStateFixture, textChunks, toolCallChunk } from '@agentkit/core/testing';
import { RedisStorage } from '../src/redis-storage';

const [mode, url, keyPrefix, logFile] = process.argv.slice(2) as [string, string, string, string];
const USER = 'user_123';
const AGENT = 'agent_456';
const SESSION = 'session_789';
const key = { userId: USER, agentId: AGENT, sessionId: SESSION };

let lines: AsyncIterator<string> | undefined;
async function waitFor(line: string): Promise<void> {
  lines ??= createInterface({ input: process.stdin })[Symbol.asyncIterator]();
  for (;;) {
    const next = await lines.next();
    if (next.done) throw new Error(`stdin closed before '${line}'`);
    if (next.value.trim() === line) return;
  }
}
const print = (event: Record<string, unknown>) =>
  process.stdout.write(`${JSON.stringify({ pid: process.pid, ...event })}\n`);

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

await using storage = new RedisStorage({ url, keyPrefix });

/** Loads the session, runs the step's reply and saves it (with `writeOptions`, e.g. a lease's token). */
async function replyAndSave(step: 'start' | 'resume', writeOptions: { leaseToken?: number } = {}) {
  // Each process gets the model responses it will play: the first call in A, the second in B.
  const model = new ScriptedModel(
    step === 'start'
      ? [[toolCallChunk('append_line', { line: 'hello' }, 'call_1')]]
      : [textChunks('Appended the line.')],
  );
  const record = await storage.getSession(USER, AGENT, SESSION);
  const agent = new Agent({
    name: 'Friday',
    systemPrompt: 'You are a helpful assistant.',
    model,
    tools: [appendLine],
    state: record?.state ?? createAgentState({ sessionId: SESSION }),
  });
  const msg =
    step === 'start'
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
    ? await storage.updateSessionState(USER, AGENT, SESSION, agent.state, {
        expectedVersion: record.version,
        ...writeOptions,
      })
    : await storage.upsertSession(USER, AGENT, SESSION, {
        state: agent.state,
        expectedVersion: 0,
        ...writeOptions,
      });
  return { finishedReason: msg.finishedReason, text: getText(msg), version: saved.version };
}

if (mode === 'start' || mode === 'resume') {
  process.stdout.write(JSON.stringify({ pid: process.pid, ...(await replyAndSave(mode)) }));
} else if (mode === 'race') {
  print({ event: 'ready' });
  await waitFor('go');
  let lease: SessionLease;
  try {
    lease = await SessionLease.acquire(storage, key, { ttlMs: 30_000, owner: `worker-${process.pid}` });
  } catch (error) {
    if (!(error instanceof SessionBusyError)) throw error;
    print({ event: 'busy', code: error.code, owner: error.owner, expiresAt: error.expiresAt });
    process.exit(0);
  }
  print({ event: 'acquired', token: lease.token, owner: lease.owner });
  await waitFor('resume');
  const done = await replyAndSave('resume', lease.writeOptions());
  await lease.release();
  print({ event: 'done', ...done });
} else if (mode === 'stall') {
  const lease = await SessionLease.acquire(storage, key, { ttlMs: 600, owner: `stalled-${process.pid}` });
  print({ event: 'leased', token: lease.token });
  await waitFor('write');
  try {
    const saved = await storage.updateSessionState(
      USER,
      AGENT,
      SESSION,
      pausedStateFixture({ sessionId: SESSION, note: 'stalled' }),
      lease.writeOptions(),
    );
    print({ event: 'written', version: saved.version });
  } catch (error) {
    if (!AgentkitError.isInstance(error)) throw error;
    print({ event: 'refused', code: error.code });
  }
  // The overdue renewal finds the lease gone and aborts the signal the holder's work runs under.
  if (!lease.signal.aborted)
    await new Promise((resolve) => {
      lease.signal.addEventListener('abort', resolve, { once: true });
      setTimeout(resolve, 3_000);
    });
  print({
    event: 'signal',
    aborted: lease.signal.aborted,
    reason: (lease.signal.reason as AgentkitError)?.code,
  });
  process.exit(0);
} else {
  throw new Error(`unknown mode ${mode}`);
}
// Nothing more to read: let the process end.
if (lines) process.stdin.destroy();
