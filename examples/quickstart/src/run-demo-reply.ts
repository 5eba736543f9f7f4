import {
  type AgentInput,
  type AgentState,
  type Msg,
  runSession,
  type SessionRecord,
  type SessionStore,
} from '@agentkit/core';
import type { Agent } from '@agentkit/core';
import { SESSION_KEY } from './demo-paths';
import type { Transcript } from './transcript';

/** What {@link runDemoReply} needs. */
export interface DemoReplyOptions {
  store: SessionStore;
  /** Builds the demo's agent on the session's saved state. */
  agent: (state: AgentState) => Agent;
  input: AgentInput;
  transcript: Transcript;
  /** Metadata of the session when this reply creates it. */
  metadata?: { title: string };
}

/**
 * Runs one reply of the demo's session (or one resumed stretch of it) with `runSession` — the session's
 * lease, its state, checkpoints before and after the sandbox tools, the save — and prints its events.
 * Returns the reply's message (`finishedReason: null` when it paused) and the session as saved. Ctrl-C
 * interrupts it: the reply ends `interrupted` with its partial output kept, and is saved.
 */
export async function runDemoReply(
  options: DemoReplyOptions,
): Promise<{ message: Msg; record: SessionRecord }> {
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  try {
    const { message, record } = await runSession({
      store: options.store,
      session: SESSION_KEY,
      agent: options.agent,
      input: options.input,
      signal: controller.signal,
      ...(options.metadata ? { metadata: options.metadata } : {}),
      onEvent: (event) => options.transcript.write(event),
    });
    options.transcript.write(message);
    return { message, record };
  } finally {
    process.off('SIGINT', onSigint);
  }
}
