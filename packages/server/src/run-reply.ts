import {
  type AgentEvent,
  AgentkitError,
  type AgentState,
  type Agent,
  classifyError,
  isInputEvent,
  type Logger,
  runSession,
  type SessionKey,
  type SessionLease,
  type SessionRecord,
  type SessionRunResult,
  type SessionStore,
} from '@agentkit/core';
import { EventBatcher } from './event-batcher';
import type { EventLog, LogEvent, RunEndEvent, RunStatus } from './event-log';
import type { ReplyRequest } from './runner';

/** Builds the agent that runs a session's reply, from the session's saved state. */
export type AgentFactory = (context: {
  /** Pass it as the agent's `state`. */
  state: AgentState;
  record: SessionRecord;
  session: SessionKey;
}) => Agent | Promise<Agent>;

/** Options of {@link runReply}. */
export interface RunReplyOptions {
  store: SessionStore;
  log: EventLog;
  /** Builds the session's agent. */
  agent: AgentFactory;
  /** The reply to run. */
  request: ReplyRequest;
  /** The run's id, carried by its `RUN_START` and `RUN_END` markers. */
  runId: string;
  /** The session's lease, held by the caller (who releases it after `done`). */
  lease: SessionLease;
  /** Interrupts the reply (it ends `interrupted` and is saved). */
  signal?: AbortSignal;
  /** Stops the reply at its next safe point, saved unfinished (status `suspended`). */
  suspendSignal?: AbortSignal;
  logger?: Logger;
  /**
   * Events logged right after `RUN_START`, before the reply's own: e.g. a `REPLY_SNAPSHOT` of the stored
   * reply when a run takes over from a process that died (clients drop what that process streamed).
   */
  prelude?: LogEvent[];
  /**
   * Log a run whose input the reply refused before its first event (`RUN_START`, then `RUN_END` with
   * status `failed` and the error), for callers whose client is already following the log. Default
   * `false`: such a run logs nothing, and `accepted` rejects with the error.
   */
  logRefusal?: boolean;
  /**
   * Whether the run ends here (`RUN_END` is logged) for this outcome. Default: always. A run that will be
   * continued elsewhere (a job handed back to a queue, a retry) returns `false`: its followers keep
   * following.
   */
  endsRun?: (outcome: ReplyRunOutcome) => boolean;
}

/** How a {@link runReply} run ended. */
export interface ReplyRunOutcome {
  /** The run's status (what its `RUN_END` says, when logged). */
  status: RunStatus;
  /** Why a `failed` run failed. */
  error: RunEndEvent['error'];
  /** The reply the run worked on, when known. */
  replyId: string | null;
  /** What `runSession` returned (`null` for a failed run). */
  result: SessionRunResult | null;
  /** The error a failed run threw. */
  cause?: unknown;
  /** Whether `RUN_END` was logged. */
  ended: boolean;
}

/** A run started by {@link runReply}. */
export interface ReplyRun {
  /**
   * Resolves once the reply accepted its input (its first event), or ended without any; rejects with the
   * error when the reply refused the input before its first event.
   */
  accepted: Promise<void>;
  /** Resolves once the run is over and its events (and `RUN_END`, if any) are in the log. Never rejects. */
  done: Promise<ReplyRunOutcome>;
}

/**
 * Runs one reply under a lease the caller holds, the way every runner of `@agentkit/server` does:
 * `runSession` (fenced checkpoints, save), every event appended to the event log in batches between a
 * `RUN_START` and a `RUN_END` marker, a resume event logged once the reply accepted it (so replaying the
 * log gives the saved message). Used by the in-process runner and by queue workers.
 */
export function runReply(options: RunReplyOptions): ReplyRun {
  const { store, log, request, runId, logger } = options;
  const { session } = request;
  // Once the lease is lost, the session is another process's: what this reply still does (it ends
  // interrupted, its save is refused) must not reach the log, where it would follow — and contradict —
  // the events of the run that took over. The run's markers still go (a `RUN_END` for its followers).
  const batcher = new EventBatcher((events) => {
    const kept = options.lease.held ? events : events.filter(isRunMarker);
    return kept.length > 0 ? log.append(session, kept) : Promise.resolve();
  });
  let replyId: string | null = request.replyId ?? null;
  let started = false;
  let accepted!: () => void;
  const firstEvent = new Promise<void>((resolve) => (accepted = resolve));

  /** Logs `RUN_START` (once), the prelude, and the resume event when this run applies it. */
  const begin = (first: AgentEvent | 'done' | 'refused') => {
    if (started) return;
    started = true;
    batcher.push({ type: 'RUN_START', runId, replyId, createdAt: new Date().toISOString() });
    for (const event of options.prelude ?? []) batcher.push(event);
    // A resume event is logged once the reply accepted it. A reply continued from its checkpoint
    // (`REPLY_SNAPSHOT`) or already done did not apply it.
    const applied = typeof first === 'object' && first.type !== 'REPLY_SNAPSHOT';
    if (applied && isInputEvent(request.input)) batcher.push(request.input);
    accepted();
  };

  const finish = async (outcome: Omit<ReplyRunOutcome, 'ended' | 'replyId'>): Promise<ReplyRunOutcome> => {
    const ends = options.endsRun?.({ ...outcome, replyId, ended: false }) ?? true;
    const end: RunEndEvent = {
      type: 'RUN_END',
      runId,
      replyId,
      status: outcome.status,
      error: outcome.error,
      createdAt: new Date().toISOString(),
    };
    try {
      if (ends) batcher.push(end); // throws when an earlier append failed
      await batcher.flush();
    } catch (flushError) {
      // An append failed (the log was unreachable, e.g. a Redis that stopped answering): the run's end
      // must still reach its followers once the log is back, or they wait for it forever.
      try {
        if (ends) await log.append(session, [end]);
        else throw flushError;
      } catch (appendError) {
        logger?.error(`agentkit-server: could not log the end of run ${runId}`, appendError);
      }
    }
    return { ...outcome, replyId, ended: ends };
  };

  const result = runSession({
    store,
    session,
    lease: options.lease,
    input: request.input,
    ...(request.replyId !== undefined ? { replyId: request.replyId } : {}),
    ...(request.replyOptions ? { replyOptions: request.replyOptions } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.suspendSignal ? { suspendSignal: options.suspendSignal } : {}),
    agent: (state, record) => options.agent({ state, record, session }),
    onEvent: (event) => {
      if (event.type === 'REPLY_START' || event.type === 'REPLY_SNAPSHOT') replyId = event.replyId;
      else if (replyId === null && 'replyId' in event && typeof event.replyId === 'string')
        replyId = event.replyId;
      begin(event);
      return batcher.push(event as LogEvent);
    },
  });

  const done = result.then(
    async (ran) => {
      replyId ??= ran.message.id;
      begin('done');
      const status: RunStatus =
        ran.message.finishedReason !== null ? 'ended' : ran.outcome === 'suspended' ? 'suspended' : 'paused';
      return finish({ status, error: null, result: ran });
    },
    async (error: unknown) => {
      const info = classifyError(error);
      const code = AgentkitError.isInstance(error) ? error.code : 'INTERNAL';
      const outcome = { status: 'failed' as const, error: { ...info, code }, result: null, cause: error };
      if (!started && !options.logRefusal) return { ...outcome, replyId, ended: false };
      begin('refused');
      logger?.error(`agentkit-server: run ${runId} failed`, error);
      return finish(outcome);
    },
  );

  // Accepted at the first event; a reply that refused its input before any event rejects with the error.
  const acceptedOrRefused = Promise.race([firstEvent, result.then(() => undefined)]);
  acceptedOrRefused.catch(() => {}); // the caller may only look at `done`
  return { accepted: acceptedOrRefused, done };
}

function isRunMarker(event: LogEvent): boolean {
  return event.type === 'RUN_START' || event.type === 'RUN_END';
}
