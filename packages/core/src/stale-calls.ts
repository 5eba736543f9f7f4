import type { ActiveReply } from './agent-core';
import type { ToolCallBlock } from './blocks';
import { findToolResult } from './msg';
import { emitOutput } from './emit-output';
import { UNCERTAIN_TEXT } from './tool-result-texts';
import { type CallOutcome, finishResult, runToolCall } from './tool-turn';

/**
 * Calls a stopped process left running (started, result never recorded): an idempotent tool runs again;
 * any other gets a result telling the model it may or may not have taken effect.
 */
export async function settleStaleCalls(reply: ActiveReply, open: ToolCallBlock[]): Promise<CallOutcome> {
  for (const call of open) {
    const result = findToolResult(reply.msg, call.id);
    if (call.state !== 'allowed' || result?.state !== 'running' || reply.startedHere.has(call.id)) continue;
    if (reply.tools.get(call.name)?.idempotent) {
      if ((await runToolCall(reply, call, undefined)) === 'interrupted') return 'interrupted';
      continue;
    }
    emitOutput(reply, call.id, UNCERTAIN_TEXT);
    await finishResult(reply, call, 'interrupted', {});
  }
  return 'done';
}
