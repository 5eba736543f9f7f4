import { readFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, createMsg, InMemorySessionStore, runSession } from '@agentkit/core';
import { ScriptedModel, textChunks, toolCallChunk } from '@agentkit/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { contextPlugin } from './context-plugin';
import { SUMMARY_TOOL_NAME } from './defaults';
import { FileOffloader } from './file-offloader';

const FIELDS = {
  task_overview: 'o',
  current_state: 's',
  important_discoveries: 'd',
  next_steps: 'n',
  context_to_preserve: 'c',
};

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agentkit-offload-keying-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/**
 * One reply of a user in session `chat-1` (the same id for everybody), run as a service runs it: the agent,
 * its context plugin and the offloader are built per run from the session record.
 */
async function replyAs(store: InMemorySessionStore, userId: string, secret: string) {
  // The history is long enough to be compressed before the first model call.
  const seed = [
    createMsg({ role: 'user', content: `${secret} ${'x '.repeat(1500)}` }),
    createMsg({ role: 'assistant', content: `noted ${'y '.repeat(1500)}` }),
  ];
  const model = new ScriptedModel([[toolCallChunk(SUMMARY_TOOL_NAME, FIELDS)], textChunks('ok')], {
    contextSize: 1000,
  });
  let offloadedTo = '';
  const { message, record } = await runSession({
    store,
    session: { userId, agentId: 'support', sessionId: 'chat-1' },
    agent: (state, record) => {
      state.context.push(...seed);
      const offloader = new FileOffloader({ directory: dir, userId: record.userId, agentId: record.agentId });
      const wrapped = {
        offloadDataBlock: offloader.offloadDataBlock.bind(offloader),
        offloadToolResult: offloader.offloadToolResult.bind(offloader),
        offloadContext: async (...args: Parameters<FileOffloader['offloadContext']>) =>
          (offloadedTo = await offloader.offloadContext(...args)),
      };
      return new Agent({
        name: 'support',
        model,
        plugins: [contextPlugin({ triggerRatio: 0.5, reserveRatio: 0.1, offloader: wrapped })],
        state,
      });
    },
    input: 'What did I tell you?',
  });
  expect(message.finishedReason).toBe('completed');
  return { offloadedTo, summary: record.state.summary };
}

describe('offloaded context of two users with the same session id', () => {
  it("keeps each user's archive apart and tells each model its own path", async () => {
    const store = new InMemorySessionStore();
    const alice = await replyAs(store, 'alice', 'My card number is 4111 1111 1111 1111.');
    const bob = await replyAs(store, 'bob', 'My favourite colour is green.');
    expect(alice.offloadedTo).not.toBe('');
    expect(bob.offloadedTo).not.toBe(alice.offloadedTo);
    expect(await readFile(bob.offloadedTo, 'utf8')).not.toContain('4111');
    expect(await readFile(alice.offloadedTo, 'utf8')).toContain('4111');
    // The summary each model keeps names that user's archive only.
    expect(bob.summary).toContain(bob.offloadedTo);
    expect(bob.summary).not.toContain(alice.offloadedTo);
  });
});
