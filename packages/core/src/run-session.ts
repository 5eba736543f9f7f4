import type { Agent } from './agent';
import { ConfigError } from './errors/config-error';
import type { SessionKey } from './errors/store-errors';
import type { AgentEvent } from './events';
import type { JSONObject } from './json';
import type { Msg } from './msg';
import type { ReplyOptions } from './plugin';
import { type AgentInput, awaitingCalls, findReplyMsg, isUnfinished } from './reply-input';
import { SessionLease, type SessionLeaseOptions } from './session-lease';
import type { SessionRecord, SessionStore } from './session-store';
import type { AgentState } from './state';

/** Options of {@link runSession}. */
export interface RunSessionOptions<S = unknown> {
  store: SessionStore;
  /** The session. It is created (with `metadata`) when it does not exist. */
  session: SessionKey;
  /**
   * Builds the agent for this run. Pass `state` as the agent's `state` option: it is the session's saved
   * state (a fresh one for a new session).
   */
  agent: (state: AgentState, record: SessionRecord) => Agent | Promise<Agent>;
  /** A user message (or messages), a resume event (`userConfirmResult`, …), or `null` to continue. */
  input: AgentInput;
  /**
   * An id for this reply, e.g. a request or job id. A run repeated with the same id never replies twice:
   * a reply with that id that already ended is returned as it is, one left unfinished by a process that
   * stopped is continued from its last checkpoint, and a paused one is returned (or resumed by `input`).
   */
  replyId?: string;
  /** Per-reply options (e.g. `structuredSchema`); `signal`, `checkpoint` and `replyId` are set here. */
  replyOptions?: ReplyOptions<S> & {
    signal?: never;
    checkpoint?: never;
    replyId?: never;
    suspendSignal?: never;
  };
  /** Interrupts the reply (it still ends cleanly and is saved). */
  signal?: AbortSignal;
  /**
   * Stops the reply at its next safe point and saves it unfinished (graceful shutdown): another
   * `runSession` with `input: null` or the same `replyId` continues it. The outcome is `suspended`.
   */
  suspendSignal?: AbortSignal;
  /** Options of the lease this run takes, or a lease the caller already holds (then not released here). */
  lease?: SessionLeaseOptions | SessionLease;
  /** Metadata of a session this run creates. */
  metadata?: JSONObject;
  /** Receives every event as it happens; awaited, so a slow consumer slows the reply down. */
  onEvent?: (event: AgentEvent) => void | Promise<void>;
}

/** What {@link runSession} did. */
export interface SessionRunResult<S = unknown> {
  /** The reply's message: ended, or paused (`finishedReason: null`). */
  message: Msg<S>;
  /** The session as saved at the end. */
  record: SessionRecord;
  /**
   * `replied`: a reply ran (new, resumed or continued); `recovered`: an unfinished reply of a process
   * that stopped was continued; `suspended`: `suspendSignal` stopped it at a safe point, unfinished;
   * `done`: the reply with `replyId` had already ended or paused, nothing ran.
   */
  outcome: 'replied' | 'recovered' | 'suspended' | 'done';
}

/**
 * Runs one reply of a stored session the way a service must: takes the session's lease (so no other
 * process runs it at the same time; `SessionBusyError` otherwise, before anything runs), loads the state,
 * builds the agent, replies or resumes with checkpoints fenced by the lease before and after every tool
 * with side effects, saves, and releases. A process that dies mid-reply leaves its last checkpoint; the
 * next `runSession` with `input: null` (or the same `replyId`) continues from there without running a
 * recorded tool again. Losing the lease (a stall past its ttl) interrupts the reply and throws
 * `LeaseLostError`; nothing it did after the takeover is saved.
 * @example
 * const { message } = await runSession({
 *   store,
 *   session: { userId: 'u1', agentId: 'ops', sessionId: 's1' },
 *   agent: (state) => new Agent({ name: 'ops', model, tools, state }),
 *   input: 'Deploy the billing service.',
 * });
 */
export async function runSession<S = unknown>(options: RunSessionOptions<S>): Promise<SessionRunResult<S>> {
  const { store, session, onEvent } = options;
  const given = options.lease instanceof SessionLease ? options.lease : undefined;
  if (given && !sameSession(given.key, session))
    throw new ConfigError('The lease passed to runSession belongs to another session.', { field: 'lease' });
  const lease =
    given ??
    (await SessionLease.acquire(store, session, {
      ...(options.lease as SessionLeaseOptions | undefined),
      ...(options.signal ? { signal: options.signal } : {}),
    }));
  const { userId, agentId, sessionId } = session;
  const fence = lease.writeOptions();
  try {
    let record =
      (await store.getSession(userId, agentId, sessionId)) ??
      (await store.upsertSession(userId, agentId, sessionId, {
        ...fence,
        ...(options.metadata ? { metadata: options.metadata } : {}),
      }));
    const agent = await options.agent(record.state, record);
    if (
      agent.state.sessionId !== record.state.sessionId ||
      agent.state.context.length !== record.state.context.length
    )
      throw new ConfigError(
        "runSession's agent factory must build the agent with the session's state (pass `state` to new Agent).",
        { field: 'agent' },
      );

    let input = options.input;
    let outcome: SessionRunResult['outcome'] = 'replied';
    const known = options.replyId === undefined ? undefined : findMessage(agent.state, options.replyId);
    if (known) {
      const paused = awaitingCalls(known).length > 0;
      const isResume = typeof input === 'object' && input !== null && 'type' in input;
      if (known.finishedReason !== null || (paused && !isResume))
        return { message: known as Msg<S>, record, outcome: 'done' };
      if (!paused) {
        input = null; // unfinished: continue it
        outcome = 'recovered';
      }
    } else if ((input === null || input === undefined) && isUnfinished(findReplyMsg(agent.state)))
      outcome = 'recovered';

    const signal = options.signal ? AbortSignal.any([options.signal, lease.signal]) : lease.signal;
    const replyOptions = {
      ...options.replyOptions,
      signal,
      ...(options.suspendSignal ? { suspendSignal: options.suspendSignal } : {}),
      yieldFinalMsg: true,
      ...(options.replyId !== undefined && !known ? { replyId: options.replyId } : {}),
      checkpoint: async (state: AgentState) => {
        record = await store.updateSessionState(userId, agentId, sessionId, state, fence);
      },
    } as const;
    let message: Msg<S> | undefined;
    let consumerError: { error: unknown } | undefined;
    for await (const item of agent.replyStream<S>(input, replyOptions)) {
      if (!('type' in item)) message = item as Msg<S>;
      else if (onEvent)
        try {
          await onEvent(item);
        } catch (error) {
          // Leaving the stream stops the reply like an interrupt and waits for it to end cleanly.
          consumerError = { error };
          break;
        }
    }
    record = await store.updateSessionState(userId, agentId, sessionId, agent.state, fence);
    if (consumerError) throw consumerError.error;
    if (!message) throw new ConfigError('The reply produced no message.');
    if (isUnfinished(message)) outcome = 'suspended';
    return { message, record, outcome };
  } finally {
    if (!given) await lease.release();
  }
}

function sameSession(a: SessionKey, b: SessionKey): boolean {
  return a.userId === b.userId && a.agentId === b.agentId && a.sessionId === b.sessionId;
}

function findMessage(state: AgentState, id: string): Msg | undefined {
  for (let i = state.context.length - 1; i >= 0; i--)
    if (state.context[i]!.id === id) return state.context[i];
  return undefined;
}
