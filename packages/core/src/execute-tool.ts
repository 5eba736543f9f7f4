import type { ActiveReply } from './agent-core';
import type { ToolCallBlock, ToolResultState } from './blocks';
import { isBase64 } from './base64-append';
import { resultPartProblem } from './check-agent-state';
import { emitOutput } from './emit-output';
import type { JSONObject, JSONValue } from './json';
import { jsonValueProblem } from './json-value-check';
import { deadlineError } from './reply-deadline';
import { raceAbort } from './sleep';
import { thrownText } from './thrown-text';
import type { AnyTool, ToolChunk, ToolContext, ToolResult } from './tool';
import { DEADLINE_TEXT, INTERRUPTED_TEXT, timedOutText } from './tool-result-texts';

/** Runs an allowed call's tool and streams its output. A failure is the call's result, not the reply's. */
export async function executeTool(
  reply: ActiveReply,
  tool: AnyTool,
  call: ToolCallBlock,
  input: unknown,
): Promise<{ state: ToolResultState; metadata: JSONObject }> {
  const replySignal = reply.signal;
  // A tool with a time limit gets a signal of its own that also aborts with the reply's.
  const timeout = tool.timeoutMs === undefined ? undefined : AbortSignal.timeout(tool.timeoutMs);
  const signal = timeout ? AbortSignal.any([replySignal, timeout]) : replySignal;
  let state: ToolResultState = 'success';
  let metadata: JSONObject = {};
  try {
    if (!tool.execute) throw new Error(`Tool '${call.name}' has no execute function.`);
    if (signal.aborted) throw signal.reason;
    const returned = tool.execute(input, toolContext(reply, call, signal));
    // A tool that ignores the signal must not hold the interrupted reply open.
    const value = returned instanceof Promise ? await raceAbort(returned, signal) : returned;
    const result = isAsyncIterable(value)
      ? toToolResult(await streamTool(reply, call.id, value, signal), true)
      : toToolResult(value, false);
    const problem = resultProblem(result);
    if (problem) throw new Error(`Tool '${call.name}' returned a result that cannot be saved: ${problem}.`);
    if (result.state) state = result.state;
    if (result.metadata) metadata = result.metadata;
    if (result.output !== undefined) emitOutput(reply, call.id, result.output);
  } catch (error) {
    // Only the reply's own signal is an interrupt; a tool's own AbortError is a tool error.
    if (replySignal.aborted) {
      emitOutput(reply, call.id, deadlineError(replySignal) ? DEADLINE_TEXT : INTERRUPTED_TEXT);
      state = 'interrupted';
    } else {
      emitOutput(
        reply,
        call.id,
        timeout?.aborted ? timedOutText(call.name, tool.timeoutMs!) : thrownText(error),
      );
      state = 'error';
    }
  }
  if (replySignal.aborted) state = 'interrupted';
  return { state, metadata };
}

function toolContext(reply: ActiveReply, call: ToolCallBlock, signal: AbortSignal): ToolContext {
  const state = reply.state;
  const owner = reply.toolOwners.get(call.name);
  return {
    ...(owner ? { plugin: reply.pluginContext(owner) } : {}),
    signal,
    toolCallId: call.id,
    replyId: reply.msg.id,
    state,
    getPluginState: <T>(plugin: string) => state.plugins[plugin] as T,
    setPluginState: (plugin, value) => {
      state.plugins[plugin] = value as JSONValue;
    },
    finishReply: (result) => reply.finishReply(result),
  };
}

async function streamTool(
  reply: ActiveReply,
  callId: string,
  iterable: AsyncIterable<ToolChunk>,
  signal: AbortSignal,
): Promise<unknown> {
  const { sink } = reply;
  const it = iterable[Symbol.asyncIterator]();
  for (;;) {
    const r = await raceAbort(it.next(), signal);
    if (r.done) return r.value;
    const problem = typeof r.value === 'string' ? null : outputPartProblem(r.value, 'chunk');
    if (problem) throw new Error(`The tool streamed a chunk that cannot be saved: ${problem}.`);
    emitOutput(reply, callId, [r.value]);
    // A consumer far behind a fast tool: wait for it rather than queue without bound.
    const behind = sink?.backpressure();
    if (behind) await raceAbort(behind, signal);
    if (signal.aborted) {
      await it.return?.();
      throw signal.reason;
    }
  }
}

/**
 * Why a tool's result cannot be saved (a state other than success/error, metadata that is not a plain JSON
 * object, an output part of the wrong shape), or `null`: it would corrupt the state that holds it.
 */
function resultProblem(r: Partial<ToolResult>): string | null {
  if (r.state !== undefined && r.state !== 'success' && r.state !== 'error')
    return "its state must be 'success' or 'error'";
  const m = r.metadata;
  if (m !== undefined && (typeof m !== 'object' || m === null || Array.isArray(m)))
    return 'its metadata must be a JSON object';
  if (m !== undefined) {
    const bad = jsonValueProblem(m, 'metadata');
    if (bad) return bad;
  }
  const out = r.output;
  if (out === undefined || typeof out === 'string') return null;
  if (!Array.isArray(out)) return 'its output must be a string or a list of text and data blocks';
  for (let i = 0; i < out.length; i++) {
    const bad = outputPartProblem(out[i], `output[${i}]`);
    if (bad) return bad;
  }
  return null;
}

/** Why a part of a tool's output cannot be kept: a block the state cannot hold, or data no provider takes. */
function outputPartProblem(part: unknown, path: string): string | null {
  const bad = resultPartProblem(part, path);
  if (bad) return bad;
  const source = (part as { source?: { type?: unknown; data?: string } }).source;
  return source?.type === 'base64' && !isBase64(source.data!) ? `'${path}.source.data' must be base64` : null;
}

function isAsyncIterable(value: unknown): value is AsyncIterable<ToolChunk> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

/** Reads a tool's return value. After streaming, only a {@link ToolResult}-shaped value adds anything. */
function toToolResult(value: unknown, streamed: boolean): Partial<ToolResult> {
  const isResult =
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    ('output' in value || (streamed && ('state' in value || 'metadata' in value)));
  if (isResult) return value as Partial<ToolResult>;
  if (streamed || value === undefined) return {};
  return { output: typeof value === 'string' ? value : JSON.stringify(value) };
}
