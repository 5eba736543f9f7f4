import type { DataBlock, TextBlock, ToolCallBlock } from './blocks';
import { appendBase64 } from './base64-append';
import type { AgentEvent, InputEvent } from './events';
import { findToolResult, type Msg } from './msg';
import { addUsage, emptyUsage, normalizeUsage } from './usage';

/** Called for events that cannot be applied (wrong reply, unknown block); default: ignore. */
export type ReplayWarning = (message: string, event: AgentEvent | InputEvent) => void;

function findCall(msg: Msg, id: string): ToolCallBlock | undefined {
  // From the end: the call an event refers to is almost always among the newest blocks.
  for (let i = msg.content.length - 1; i >= 0; i--) {
    const b = msg.content[i]!;
    if (b.type === 'tool_call' && b.id === id) return b;
  }
  return undefined;
}
function findBlock(msg: Msg, id: string) {
  for (let i = msg.content.length - 1; i >= 0; i--) if (msg.content[i]!.id === id) return msg.content[i];
  return undefined;
}

/** Appends streamed tool-result text to an output list the way the agent does (ids derive from the call id). */
function appendResultText(output: Array<TextBlock | DataBlock>, callId: string, delta: string): void {
  const last = output[output.length - 1];
  if (last?.type === 'text') last.text += delta;
  else output.push({ type: 'text', id: `${callId}.${output.length}`, text: delta });
}

/**
 * Applies one event (or input event) to a reply message and returns it — the reducer UIs and services use
 * to rebuild a reply from its stream. `REPLY_START` creates the message (pass `null` before it), and
 * `REPLY_SNAPSHOT` replaces it with the checkpoint a recovered reply continues from; a resumed reply
 * continues from the persisted paused message. Replaying a reply's whole stream (plus the input
 * events that resumed it) yields the message the agent persisted. Events of another reply and deltas of
 * unknown blocks, data deltas that are not base64 and events of the wrong shape (off the wire) are
 * skipped (reported to `warn`), never thrown.
 */
export function applyEvent(
  msg: Msg | null,
  event: AgentEvent | InputEvent,
  warn: ReplayWarning = () => {},
): Msg | null {
  // Events may come off the wire: one of the wrong shape is skipped like an unknown block's.
  try {
    return apply(msg, event, warn);
  } catch {
    warn('malformed event skipped', event);
    return msg;
  }
}

function apply(msg: Msg | null, event: AgentEvent | InputEvent, warn: ReplayWarning): Msg | null {
  if (event.type === 'REPLY_START') {
    return {
      id: event.replyId,
      name: event.name,
      role: 'assistant',
      content: [],
      createdAt: event.createdAt,
      usage: null,
      finishedAt: null,
      finishedReason: null,
      structuredOutput: null,
      error: null,
    };
  }
  if (event.type === 'REPLY_SNAPSHOT') return structuredClone(event.message);
  if (!msg) {
    warn('event before REPLY_START', event);
    return msg;
  }
  if ('replyId' in event && event.replyId !== undefined && event.replyId !== msg.id) {
    warn(`event of reply '${event.replyId}' skipped (message is '${msg.id}')`, event);
    return msg;
  }
  const c = msg.content;
  switch (event.type) {
    case 'REPLY_END':
      msg.finishedAt = event.createdAt;
      msg.finishedReason = event.finishedReason;
      msg.error = event.error;
      msg.structuredOutput = event.structuredOutput ?? null;
      break;
    case 'MODEL_CALL_END':
      msg.usage = addUsage(msg.usage ?? emptyUsage(), normalizeUsage(event.usage));
      break;
    case 'TEXT_BLOCK_START':
      c.push({ type: 'text', id: event.blockId, text: '' });
      break;
    case 'THINKING_BLOCK_START':
      c.push({ type: 'thinking', id: event.blockId, thinking: '' });
      break;
    case 'DATA_BLOCK_END': {
      const b = findBlock(msg, event.blockId);
      if (!b) warn(`end of unknown block '${event.blockId}'`, event);
      else if (event.providerData && b.type === 'data') b.providerData = event.providerData;
      break;
    }
    case 'DATA_BLOCK_START':
      c.push({
        type: 'data',
        id: event.blockId,
        source: { type: 'base64', data: '', mediaType: event.mediaType },
      });
      break;
    case 'TEXT_BLOCK_DELTA':
    case 'THINKING_BLOCK_DELTA':
    case 'DATA_BLOCK_DELTA': {
      const b = findBlock(msg, event.blockId);
      if (b?.type === 'text' && event.type === 'TEXT_BLOCK_DELTA') b.text += event.delta;
      else if (b?.type === 'thinking' && event.type === 'THINKING_BLOCK_DELTA') b.thinking += event.delta;
      else if (b?.type === 'data' && b.source.type === 'base64' && event.type === 'DATA_BLOCK_DELTA') {
        if (!appendBase64(b.source, event.data))
          warn(`data delta of block '${event.blockId}' is not base64`, event);
      } else warn(`delta for unknown block '${event.blockId}'`, event);
      break;
    }
    case 'TEXT_BLOCK_END':
    case 'THINKING_BLOCK_END': {
      const b = findBlock(msg, event.blockId);
      if (!b) warn(`end of unknown block '${event.blockId}'`, event);
      else if (event.providerData && (b.type === 'text' || b.type === 'thinking'))
        b.providerData = event.providerData;
      break;
    }
    case 'HINT_BLOCK':
      c.push({
        type: 'hint',
        id: event.blockId,
        hint: structuredClone(event.hint),
        source: event.source,
        createdAt: event.createdAt,
      });
      break;
    case 'TOOL_CALL_START':
      c.push({
        type: 'tool_call',
        id: event.toolCallId,
        name: event.toolCallName,
        input: '',
        state: 'pending',
      });
      break;
    case 'TOOL_CALL_DELTA': {
      const call = findCall(msg, event.toolCallId);
      if (call) call.input += event.delta;
      else warn(`delta for unknown tool call '${event.toolCallId}'`, event);
      break;
    }
    case 'TOOL_CALL_END': {
      const call = findCall(msg, event.toolCallId);
      if (call && event.providerData) call.providerData = event.providerData;
      break;
    }
    case 'TOOL_RESULT_START': {
      const call = findCall(msg, event.toolCallId);
      if (call && call.state !== 'finished') call.state = 'allowed';
      if (call && event.input !== undefined) call.input = event.input;
      const earlier = findToolResult(msg, event.toolCallId);
      if (earlier?.state === 'running') {
        // The call runs again (an idempotent tool whose process stopped): its result starts over.
        earlier.output = [];
        earlier.metadata = {};
        break;
      }
      c.push({
        type: 'tool_result',
        id: event.toolCallId,
        name: event.toolCallName,
        output: [],
        state: 'running',
        metadata: {},
      });
      break;
    }
    case 'TOOL_RESULT_TEXT_DELTA': {
      const r = findToolResult(msg, event.toolCallId);
      if (r) appendResultText(r.output, event.toolCallId, event.delta);
      else warn(`delta for unknown tool result '${event.toolCallId}'`, event);
      break;
    }
    case 'TOOL_RESULT_DATA_DELTA': {
      const r = findToolResult(msg, event.toolCallId);
      if (!r) warn(`delta for unknown tool result '${event.toolCallId}'`, event);
      else
        r.output.push({
          type: 'data',
          id: event.blockId,
          source:
            event.url !== undefined
              ? { type: 'url', url: event.url, mediaType: event.mediaType }
              : { type: 'base64', data: event.data ?? '', mediaType: event.mediaType },
          ...(event.name !== undefined ? { name: event.name } : {}),
        });
      break;
    }
    case 'TOOL_RESULT_END': {
      const r = findToolResult(msg, event.toolCallId);
      if (!r) {
        warn(`end of unknown tool result '${event.toolCallId}'`, event);
        break;
      }
      r.state = event.state;
      r.metadata = isEmpty(event.metadata) ? {} : structuredClone(event.metadata);
      if (event.output) r.output = structuredClone(event.output);
      const call = findCall(msg, event.toolCallId);
      if (call) call.state = 'finished';
      break;
    }
    case 'REQUIRE_USER_CONFIRM':
    case 'REQUIRE_EXTERNAL_EXECUTION':
      for (const t of event.toolCalls) {
        const call = findCall(msg, t.id);
        if (!call) continue;
        call.state = event.type === 'REQUIRE_USER_CONFIRM' ? 'asking' : 'submitted';
        if (typeof t.input === 'string') call.input = t.input;
        if (t.suggestedRules) call.suggestedRules = structuredClone(t.suggestedRules);
      }
      break;
    case 'USER_CONFIRM_RESULT':
      for (const r of event.confirmResults) {
        const call = findCall(msg, r.toolCall.id);
        if (call?.state !== 'asking') continue;
        if (r.confirmed) {
          call.state = 'allowed';
          call.name = r.toolCall.name;
          call.input = r.toolCall.input;
        }
      }
      break;
    case 'EXTERNAL_EXECUTION_RESULT':
      break; // the agent streams the results as TOOL_RESULT_* events, which carry everything
    default:
      break;
  }
  return msg;
}

/** Replays a whole stream onto `initial` (or from `REPLY_START`). */
export function replayEvents(
  events: Iterable<AgentEvent | InputEvent>,
  initial: Msg | null = null,
  warn?: ReplayWarning,
): Msg | null {
  let msg = initial;
  for (const e of events) msg = applyEvent(msg, e, warn);
  return msg;
}

function isEmpty(o: object): boolean {
  for (const _ in o) return false;
  return true;
}
