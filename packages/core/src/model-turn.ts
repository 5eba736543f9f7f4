import type { ActiveReply, AgentCore } from './agent-core';
import type { DataBlock, TextBlock } from './blocks';
import { ModelError } from './errors/model-error';
import type { ChatModel, ModelChunk, ModelRequest, ToolChoice, ToolSchema } from './model';
import { ModelStream, ResponseCutOff } from './model-stream';
import { createMsg, type Msg } from './msg';
import { now } from './now';
import { openModelStream } from './open-model-stream';
import type { InferenceRequest } from './plugin';
import { responseCutOffText } from './tool-result-texts';
import { failCall } from './tool-turn';

/** How a model turn ended: a final answer (text or data, no tool calls), anything else, or an interrupt. */
export type ModelTurnOutcome = 'answered' | 'continued' | 'interrupted';

/** The compression summary as the user message that leads the model input, or `undefined`. */
export function summaryLead(core: AgentCore): Msg | undefined {
  const summary = core.state.summary;
  if (summary === '' || (Array.isArray(summary) && summary.length === 0)) return undefined;
  if (core.summaryLead?.summary !== summary) {
    const content: Array<TextBlock | DataBlock> =
      typeof summary === 'string' ? [{ type: 'text', id: 'summary', text: summary }] : summary;
    core.summaryLead = {
      summary,
      msg: createMsg({ role: 'user', name: 'user', content, id: 'summary', createdAt: '' }),
    };
  }
  return core.summaryLead.msg;
}

/** The model input after the system prompt; the context itself when there is no summary (no copy per call). */
export function requestMessages(core: AgentCore): readonly Msg[] {
  const lead = summaryLead(core);
  return lead ? [lead, ...core.state.context] : core.state.context;
}

/**
 * Tokens of the next request as built from the state with `tools` (incremental; see
 * `TokenCounter.countContext`). What `Agent.countTokens()` and `ctx.countTokens()` estimate.
 */
export function countRequestTokens(core: AgentCore, tools: ToolSchema[]): number {
  return core.counter.countContext(core.systemPrompt, tools, summaryLead(core), core.state.context);
}

/**
 * One model turn: persists a pending hint, builds the request, lets `beforeInference` hooks edit it,
 * and streams the model's answer into the reply message. No model call when a hook ended the reply.
 */
export async function modelTurn(
  reply: ActiveReply,
  hint: string | undefined,
  toolChoice: ToolChoice | undefined,
): Promise<ModelTurnOutcome> {
  const { core } = reply;
  if (hint !== undefined) reply.addHint(hint, 'agentkit', true);
  let request: InferenceRequest = {
    systemPrompt: core.systemPrompt,
    messages: requestMessages(core),
    tools: reply.toolSchemas(),
    toolChoice: toolChoice ?? 'auto',
    agentName: core.name,
  };
  const built = request;
  if (core.driver.has('beforeInference'))
    request = await core.driver.waterfall(
      'beforeInference',
      reply,
      request,
      (ctx, given) => {
        reply.contextReplaced = false;
        return { ctx, request: given };
      },
      (returned, given) => {
        const next = returned || given;
        // A hook that replaced the context (compression) without supplying messages gets them rebuilt.
        // Hints need nothing: the request holds the reply message itself.
        return reply.contextReplaced && next.messages === given.messages
          ? { ...next, messages: requestMessages(core) }
          : next;
      },
    );
  if (reply.state.reply!.finish) return 'continued'; // a hook ended the reply: no model call
  if (reply.signal.aborted) return 'interrupted';
  const asBuilt =
    request.messages === built.messages &&
    request.systemPrompt === built.systemPrompt &&
    request.tools === built.tools;
  return callModel(reply, { ...request, signal: reply.signal }, asBuilt);
}

/** Streams one model call (with the agent's retries and fallback) into the reply message. */
async function callModel(
  reply: ActiveReply,
  request: ModelRequest,
  asBuilt: boolean,
): Promise<ModelTurnOutcome> {
  const { core, sink, signal } = reply;
  const replyId = reply.msg.id;
  const tokens = core.tokens;
  // Only once someone counts tokens is the estimate of each request kept, to calibrate later counts.
  const estimate = tokens.calibrate ? (asBuilt ? reply.countState() : core.counter.count(request)) : 0;
  const stream = new ModelStream(
    reply.msg,
    (e) => reply.record(e),
    sink ? (e) => reply.publish(e) : undefined,
    reply.callIds,
    core.limits,
    // A message that never had a block (not even one a compression moved out) names its first by its id.
    reply.msg.content.length === 0 && reply.compressedBlocks.length === 0 ? replyId : undefined,
  );
  let started = false;
  const start = (model: ChatModel) => {
    started = true;
    reply.publish({ type: 'MODEL_CALL_START', replyId, modelName: model.name, createdAt: now() });
  };
  let finishedReason: 'completed' | 'interrupted' | 'error' = 'completed';
  let iterator: AsyncIterator<ModelChunk> | undefined;
  let cutOff = false;
  let exceeded: string | undefined;
  try {
    const opened = await openModelStream(core, request);
    const { first, model } = opened;
    iterator = opened.iterator;
    start(model);
    if (!first.done) {
      stream.handle(first.value);
      // A streaming consumer pulls the model itself (one hop per delta); otherwise the loop reads it.
      if (sink?.pump) await sink.pump(iterator, (chunk) => stream.handle(chunk as ModelChunk));
      else for (let r = await iterator.next(); !r.done; r = await iterator.next()) stream.handle(r.value);
    }
    if (!stream.produced)
      throw new ModelError('upstream', `The model '${model.name}' returned an empty response.`, {
        retryable: false,
      });
  } catch (error) {
    // A refused chunk (bad data, a response cut off) leaves the model stream open: close it, and the
    // provider's connection with it.
    void iterator?.return?.()?.catch(() => {});
    cutOff = error instanceof ResponseCutOff && !signal.aborted;
    if (cutOff) exceeded = (error as ResponseCutOff).exceeded;
    if (!signal.aborted && !cutOff) {
      if (started) {
        stream.close();
        reply.record({
          type: 'MODEL_CALL_END',
          replyId,
          usage: stream.usage,
          finishedReason: 'error',
          createdAt: now(),
        });
      }
      throw error;
    }
    finishedReason = cutOff ? 'error' : 'interrupted';
    if (!started) start(core.model);
  }
  stream.close();
  reply.record({ type: 'MODEL_CALL_END', replyId, usage: stream.usage, finishedReason, createdAt: now() });
  if (finishedReason === 'interrupted') return 'interrupted';
  if (cutOff) {
    // None of the calls of a cut-off response runs; the model is told why, and answers again.
    const text = responseCutOffText(exceeded ?? `${core.limits.maxResponseChars} characters`);
    for (const call of stream.callBlocks) await failCall(reply, call, text, 'error');
    reply.addHint(text, 'agentkit', true);
    return 'continued';
  }
  const state = reply.state;
  if (tokens.calibrate && stream.usage.inputTokens > 0)
    tokens.last = {
      context: state.context,
      summary: state.summary,
      estimate,
      reported: stream.usage.inputTokens,
    };
  return !stream.sawToolCall && stream.sawAnswer ? 'answered' : 'continued';
}
