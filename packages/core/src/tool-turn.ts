import type { ActiveReply } from './agent-core';
import type { ToolCallBlock, ToolResultBlock, ToolResultState } from './blocks';
import { emitOutput } from './emit-output';
import { executeTool } from './execute-tool';
import type { JSONObject } from './json';
import { jsonValueProblem } from './json-value-check';
import { findToolResult } from './msg';
import { anyRuleMatches, decidePermission, defaultSuggestedRules } from './permissions';
import type { ToolDecision } from './plugin';
import { parseToolInput } from './tool-input';
import { inputTooLongText, notFoundText, tooManyCallsText } from './tool-result-texts';

/** How a tool call (or a batch of them) left the reply: done, waiting for an answer, or interrupted. */
export type CallOutcome = 'done' | 'paused' | 'interrupted';

/**
 * Runs the calls of one model response. Consecutive concurrency-safe calls (and unknown tools) run
 * together, at most `limits.maxParallelToolCalls` at a time; the rest one by one. Calls past
 * `limits.maxToolCallsPerResponse` get error results instead. Stops at the first batch that pauses or is
 * interrupted.
 */
export async function runToolCalls(reply: ActiveReply, calls: ToolCallBlock[]): Promise<CallOutcome> {
  const { maxToolCallsPerResponse: most, maxParallelToolCalls } = reply.core.limits;
  if (calls.length > most) {
    for (const call of calls.slice(most)) await failCall(reply, call, tooManyCallsText(most), 'error');
    calls = calls.slice(0, most);
  }
  const batches: Array<{ concurrent: boolean; calls: ToolCallBlock[] }> = [];
  for (const call of calls) {
    const tool = reply.tools.get(call.name);
    const concurrent = !tool || tool.concurrencySafe === true;
    const last = batches[batches.length - 1];
    if (last?.concurrent && concurrent) last.calls.push(call);
    else batches.push({ concurrent, calls: [call] });
  }
  for (const batch of batches) {
    let outcomes: CallOutcome[];
    if (batch.concurrent && batch.calls.length > 1) {
      const asked: ToolCallBlock[] = [];
      const settled = await settleInPool(batch.calls, maxParallelToolCalls, (c) =>
        runToolCall(reply, c, asked),
      );
      const failed = settled.find((r) => r.status === 'rejected');
      if (failed) throw (failed as PromiseRejectedResult).reason;
      outcomes = settled.map((r) => (r as PromiseFulfilledResult<CallOutcome>).value);
    } else {
      outcomes = [];
      for (const call of batch.calls) {
        const outcome = await runToolCall(reply, call, undefined);
        outcomes.push(outcome);
        if (outcome !== 'done') break;
      }
    }
    if (outcomes.includes('interrupted') || reply.signal.aborted) return 'interrupted';
    if (outcomes.includes('paused')) return 'paused';
  }
  return 'done';
}

/**
 * One tool call, from its input to `TOOL_RESULT_END`: parse the input, decide (`beforeTool` hooks, then
 * permissions), pause when the user or the caller must answer, execute, stream the output, run
 * `afterTool` hooks and close the result. `askedInBatch` collects the calls of a concurrent batch that
 * already asked for confirmation.
 */
export async function runToolCall(
  reply: ActiveReply,
  call: ToolCallBlock,
  askedInBatch: ToolCallBlock[] | undefined,
): Promise<CallOutcome> {
  const replyId = reply.msg.id;
  const tool = reply.tools.get(call.name);
  const maxInput = reply.core.limits.maxToolInputChars;
  // Arguments past the limit were not kept (ModelStream): the call does not run, and keeps no input.
  if (call.input.length > maxInput)
    return failCall(reply, call, inputTooLongText(call.name, maxInput), 'error', { input: '' });
  let input: unknown;
  if (tool) {
    const parsed = await parseToolInput(tool, call.input);
    if (!parsed.ok) return failCall(reply, call, parsed.message, 'error');
    input = parsed.value;
  } else {
    try {
      input = call.input.trim() === '' ? {} : JSON.parse(call.input);
      // Hooks see a value they can walk; one nested deeper than any JSON agentkit keeps stays text.
      if (jsonValueProblem(input, '$', true)) input = call.input;
    } catch {
      input = call.input;
    }
  }
  let replaced = false;
  let decision: ToolDecision | undefined;
  if (call.state === 'allowed') decision = { decision: 'allow' };
  else {
    if (reply.core.driver.has('beforeTool'))
      decision = await reply.core.driver.firstDecision(
        'beforeTool',
        reply,
        (ctx) => ({ ctx, toolCall: call, tool, input }),
        (returned) => {
          if (!returned) return undefined;
          // An input without a decision replaces the input the next hooks (and the tool) see.
          if ('input' in returned && returned.input !== undefined) {
            input = returned.input;
            replaced = true;
          }
          return returned.decision === undefined ? undefined : returned;
        },
      );
    if (!tool) {
      // An unknown tool runs nowhere: a hook may deny it or hand it to the caller; otherwise it fails.
      if (decision?.decision === 'deny') return failCall(reply, call, decision.message, 'denied');
      if (decision?.decision !== 'external') return failCall(reply, call, notFoundText(call.name), 'error');
    }
    decision ??= decidePermission(reply.state.permissions, tool!, input);
  }
  // In a concurrent batch, a call covered by a rule already offered for an earlier call waits silently.
  if (
    decision.decision === 'ask' &&
    askedInBatch?.some((c) => c.name === call.name && anyRuleMatches(c.suggestedRules ?? [], tool!, input))
  )
    return 'paused';
  // The call keeps the input it runs with: the persisted call, the events and a resumed run agree.
  const newInput = replaced ? JSON.stringify(input) : undefined;
  if (newInput !== undefined) call.input = newInput;
  const withInput = newInput !== undefined ? { input: newInput } : {};
  switch (decision.decision) {
    case 'deny':
      return failCall(reply, call, decision.message, 'denied', withInput);
    case 'ask': {
      const rules = decision.suggestedRules ?? defaultSuggestedRules(tool!);
      askedInBatch?.push({ ...call, suggestedRules: rules });
      reply.record({
        type: 'REQUIRE_USER_CONFIRM',
        replyId,
        toolCalls: [{ ...call, state: 'asking', suggestedRules: structuredClone(rules) }],
      });
      return 'paused';
    }
  }
  reply.startedHere.add(call.id);
  reply.record({
    type: 'TOOL_RESULT_START',
    replyId,
    toolCallId: call.id,
    toolCallName: call.name,
    ...withInput,
  });
  if (decision.decision === 'external' || tool?.external) {
    reply.record({
      type: 'REQUIRE_EXTERNAL_EXECUTION',
      replyId,
      toolCalls: [{ ...call, state: 'submitted' }],
    });
    return 'paused';
  }
  // The call is now marked started in the state: make that durable before a side effect can happen.
  const checkpointer = tool?.idempotent === true ? undefined : reply.checkpointer;
  if (checkpointer) await checkpointer.save();
  const { state, metadata } = await executeTool(reply, tool!, call, input);
  await finishResult(reply, call, state, metadata);
  checkpointer?.saveSoon();
  return state === 'interrupted' ? 'interrupted' : 'done';
}

/**
 * Runs `afterTool` hooks over the streamed result and emits TOOL_RESULT_END, which carries the saved
 * output only when a hook changed it (the deltas always carry the tool's full output). Hooks get a copy,
 * so even a hook that edits in place cannot change the message behind the stream's back.
 */
export async function finishResult(
  reply: ActiveReply,
  call: ToolCallBlock,
  state: ToolResultState,
  metadata: JSONObject,
): Promise<void> {
  const streamed = findToolResult(reply.msg, call.id)?.output ?? [];
  let output = streamed;
  if (reply.core.driver.has('afterTool')) {
    const saved: ToolResultBlock = {
      type: 'tool_result',
      id: call.id,
      name: call.name,
      output: structuredClone(streamed),
      state,
      metadata,
    };
    ({ output, state, metadata } = await reply.core.driver.waterfall(
      'afterTool',
      reply,
      saved,
      (ctx, result) => ({ ctx, toolCall: call, result }),
    ));
  }
  const same = output === streamed || JSON.stringify(output) === JSON.stringify(streamed);
  reply.record({
    type: 'TOOL_RESULT_END',
    replyId: reply.msg.id,
    toolCallId: call.id,
    state,
    metadata,
    ...(same ? {} : { output }),
  });
}

/** A call that fails before running: unknown tool, bad input, denied. */
export async function failCall(
  reply: ActiveReply,
  call: ToolCallBlock,
  message: string,
  state: 'error' | 'denied',
  withInput: { input?: string } = {},
): Promise<CallOutcome> {
  reply.record({
    type: 'TOOL_RESULT_START',
    replyId: reply.msg.id,
    toolCallId: call.id,
    toolCallName: call.name,
    ...withInput,
  });
  emitOutput(reply, call.id, message);
  await finishResult(reply, call, state, {});
  return 'done';
}

/** `Promise.allSettled` over `items`, running at most `size` of them at a time; results in item order. */
async function settleInPool<T, R>(
  items: readonly T[],
  size: number,
  run: (item: T) => Promise<R>,
): Promise<PromiseSettledResult<R>[]> {
  const results: PromiseSettledResult<R>[] = [];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) {
      try {
        results[i] = { status: 'fulfilled', value: await run(items[i]!) };
      } catch (reason) {
        results[i] = { status: 'rejected', reason };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(size, items.length) }, worker));
  return results;
}
