import type { ActiveReply } from './agent-core';
import type { ToolCallBlock } from './blocks';
import { classifyError, type ErrorInfo } from './error-info';
import type { ExternalExecutionResultEvent, UserConfirmResultEvent } from './events';
import { newId } from './ids';
import { findToolResult, type Msg, type ReplyFinishedReason } from './msg';
import { now } from './now';
import type { ContinueReply } from './plugin';
import { applyEvent } from './replay-events';
import { deadlineError } from './reply-deadline';
import { awaitingCalls } from './reply-input';
import { emitOutput } from './emit-output';
import { deniedText, FAILED_TEXT, INTERRUPTED_TEXT, UNCERTAIN_TEXT } from './tool-result-texts';
import { failCall, finishResult } from './tool-turn';

// How a reply stops and starts again: resuming a paused reply with the answers it waited for, pausing,
// asking `beforeFinish` hooks before finishing, and ending.

/** Applies a resume event's answers to the paused calls: confirmed ones run next, the rest get results. */
export async function resume(
  reply: ActiveReply,
  event: UserConfirmResultEvent | ExternalExecutionResultEvent,
): Promise<void> {
  const calls = new Map(awaitingCalls(reply.msg).map((c) => [c.id, c]));
  if (event.type === 'USER_CONFIRM_RESULT') {
    applyEvent(reply.msg, event);
    for (const r of event.confirmResults) {
      const call = calls.get(r.toolCall.id)!;
      if (r.confirmed) {
        for (const rule of r.rules ?? []) reply.state.permissions.allow.push({ ...rule, behavior: 'allow' });
      } else await failCall(reply, call, deniedText(call.name), 'denied');
    }
    return;
  }
  for (const r of event.executionResults) {
    const call = calls.get(r.id)!;
    emitOutput(reply, call.id, r.output);
    await finishResult(reply, call, r.state, r.metadata ?? {});
  }
}

/** Pauses the reply on the calls it waits for; returns a snapshot of the paused message. */
export async function pause(reply: ActiveReply, awaiting: ToolCallBlock[]): Promise<Msg> {
  // No checkpoint may land after the caller's own save of the paused state.
  await reply.checkpointer?.settle();
  // The paused message keeps changing when the reply resumes: hand out a snapshot.
  const msg = JSON.parse(JSON.stringify(reply.msg)) as Msg;
  if (reply.core.driver.has('onPause'))
    await reply.core.driver.observe('onPause', reply, (ctx) => ({ ctx, message: msg, awaiting }));
  return msg;
}

/** Stops between steps, leaving the reply unfinished for `reply(null)` to continue (graceful shutdown). */
export async function suspend(reply: ActiveReply): Promise<Msg> {
  await reply.checkpointer?.settle();
  return JSON.parse(JSON.stringify(reply.msg)) as Msg;
}

/** Asks `beforeFinish` hooks whether the reply may end; the first that refuses continues it. */
export async function beforeFinish(
  reply: ActiveReply,
  reason: 'completed' | 'exceed_max_iters',
): Promise<ContinueReply | undefined> {
  if (!reply.core.driver.has('beforeFinish')) return undefined;
  return reply.core.driver.firstDecision(
    'beforeFinish',
    reply,
    (ctx) => ({ ctx, reason, message: reply.msg }),
    (returned) => (returned?.continue ? returned : undefined),
  );
}

/** Ends the reply: closes unanswered calls (interrupt/error), emits REPLY_END, runs observers. */
export async function end(
  reply: ActiveReply,
  reason: ReplyFinishedReason,
  error: ErrorInfo | null = null,
): Promise<Msg> {
  // No checkpoint may land after the caller's own save of the ended reply.
  await reply.checkpointer?.settle();
  const timedOut = reason === 'interrupted' ? deadlineError(reply.signal) : undefined;
  if (timedOut) ({ reason, error } = { reason: 'error', error: classifyError(timedOut) });
  const { msg: current, state } = reply;
  const replyId = current.id;
  if (reason === 'interrupted' || reason === 'error') {
    for (const call of current.content.filter(
      (b): b is ToolCallBlock => b.type === 'tool_call' && b.state !== 'finished',
    )) {
      const result = findToolResult(current, call.id);
      if (!result)
        reply.record({ type: 'TOOL_RESULT_START', replyId, toolCallId: call.id, toolCallName: call.name });
      const stale =
        call.state === 'allowed' && result?.state === 'running' && !reply.startedHere.has(call.id);
      const text = stale ? UNCERTAIN_TEXT : reason === 'interrupted' ? INTERRUPTED_TEXT : FAILED_TEXT;
      reply.record({ type: 'TOOL_RESULT_TEXT_DELTA', replyId, toolCallId: call.id, delta: text });
      reply.record({
        type: 'TOOL_RESULT_END',
        replyId,
        toolCallId: call.id,
        state: reason === 'interrupted' ? 'interrupted' : 'error',
        metadata: {},
      });
    }
  }
  if (reason === 'exceed_max_iters')
    reply.record({ type: 'EXCEED_MAX_ITERS', replyId, name: reply.core.name });
  const finish = state.reply?.finish;
  // The closing text of a reply ended through finishReply (e.g. a placeholder next to structured output).
  if (finish?.text && reason === (finish.reason ?? 'completed')) {
    const blockId = newId();
    reply.record({ type: 'TEXT_BLOCK_START', replyId, blockId });
    reply.record({ type: 'TEXT_BLOCK_DELTA', replyId, blockId, delta: finish.text });
    reply.record({ type: 'TEXT_BLOCK_END', replyId, blockId });
  }
  reply.record({
    type: 'REPLY_END',
    replyId,
    sessionId: state.sessionId,
    finishedReason: reason,
    error,
    structuredOutput: reason === 'completed' ? (finish?.structuredOutput ?? null) : null,
    createdAt: now(),
  });
  // An ended reply's message no longer changes: it is returned as persisted, not copied. Its content
  // array was grown block by block; a compact copy saves the slack for as long as the state lives.
  current.content = current.content.slice();
  const msg = reply.compressedBlocks.length
    ? { ...current, content: [...reply.compressedBlocks, ...current.content] }
    : current;
  if (reply.core.driver.has('onReplyEnd'))
    await reply.core.driver.observe('onReplyEnd', reply, (ctx) => ({
      ctx,
      message: msg,
      finishedReason: reason,
    }));
  return msg;
}
