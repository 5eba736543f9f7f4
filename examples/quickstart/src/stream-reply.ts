import type { Agent, AgentInput, Msg } from '@agentkit/core';
import type { Transcript } from './transcript';

/**
 * Runs one reply (or one resumed stretch of it), prints its events and returns its message
 * (`finishedReason: null` when it paused). Ctrl-C interrupts it: the reply ends `interrupted` with its
 * partial output kept, and the state stays valid to save.
 */
export async function streamReply(
  agent: Agent,
  input: AgentInput,
  transcript: Transcript,
): Promise<Msg | undefined> {
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  let final: Msg | undefined;
  try {
    for await (const event of agent.replyStream(input, { signal: controller.signal, yieldFinalMsg: true })) {
      transcript.write(event);
      if (!('type' in event)) final = event;
    }
  } finally {
    process.off('SIGINT', onSigint);
  }
  return final;
}
