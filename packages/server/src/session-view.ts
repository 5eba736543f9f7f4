import {
  type AgentState,
  awaitingToolCalls,
  type ErrorInfo,
  type JSONObject,
  isUnfinished,
  type LeaseGrant,
  type Msg,
  type SessionRecord,
  type ToolCallBlock,
} from '@agentkit/core';

/** Where a session stands, as `GET …/sessions/:id` reports it. */
export type SessionStatus = 'idle' | 'running' | 'paused' | 'failed';

/** A session as the server shows it: its summary, status and last reply (no state). */
export interface SessionView {
  sessionId: string;
  agentId: string;
  version: number;
  createdAt: string;
  updatedAt: string;
  metadata: JSONObject;
  /**
   * `running`: a reply holds the session's lease; `paused`: the last reply waits for `awaiting`;
   * `failed`: it ended with an error, or its process stopped mid-reply (`POST …/replies` with `input: null`
   * continues it); `idle` otherwise.
   */
  status: SessionStatus;
  /** Tool calls a paused reply waits for (confirmation: `asking`; an external result: `submitted`). */
  awaiting: ToolCallBlock[];
  /** The last reply, or `null` before the first. */
  lastReply: { id: string; finishedReason: Msg['finishedReason']; error: ErrorInfo | null } | null;
}

/** The view of a stored session, given its live lease (`null`: none). */
export function sessionView(record: SessionRecord, lease: LeaseGrant | null): SessionView {
  const reply = lastReply(record.state);
  const awaiting = awaitingToolCalls(record.state);
  const status: SessionStatus = lease
    ? 'running'
    : awaiting.length > 0
      ? 'paused'
      : reply && (reply.finishedReason === 'error' || isUnfinished(reply))
        ? 'failed'
        : 'idle';
  return {
    sessionId: record.sessionId,
    agentId: record.agentId,
    version: record.version,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
    metadata: record.metadata,
    status,
    awaiting,
    lastReply: reply ? { id: reply.id, finishedReason: reply.finishedReason, error: reply.error } : null,
  };
}

function lastReply(state: AgentState): Msg | undefined {
  const id = state.reply?.id;
  if (!id) return undefined;
  for (let i = state.context.length - 1; i >= 0; i--)
    if (state.context[i]!.id === id) return state.context[i];
  return undefined;
}
