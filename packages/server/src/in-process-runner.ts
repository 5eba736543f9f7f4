import {
  AgentkitError,
  type AgentState,
  type Agent,
  classifyError,
  isInputEvent,
  type Logger,
  newId,
  runSession,
  type SessionKey,
  SessionLease,
  type SessionRecord,
  type SessionStore,
} from '@agentkit/core';
import { ServerDrainingError } from './errors';
import { EventBatcher } from './event-batcher';
import type { EventLog, LogEvent, RunEndEvent, RunStatus } from './event-log';
import type { ReplyRequest, ReplyRunner, StartedRun } from './runner';

/** Builds the agent that runs a session's reply, from the session's saved state. */
export type AgentFactory = (context: {
  /** Pass it as the agent's `state`. */
  state: AgentState;
  record: SessionRecord;
  session: SessionKey;
}) => Agent | Promise<Agent>;

/** Options of {@link InProcessRunner}. */
export interface InProcessRunnerOptions {
  store: SessionStore;
  log: EventLog;
  /** The agent factory of an agent id, or `undefined` for an unknown id. */
  agent: (agentId: string) => AgentFactory | undefined;
  /** How long a run's lease lasts between renewals. Default 30 000 ms. */
  leaseTtlMs?: number;
  logger?: Logger;
}

interface Run {
  userId: string;
  interrupt: AbortController;
  suspend: AbortController;
  done: Promise<void>;
}

/**
 * Runs replies in this process: takes the session's lease, runs the reply with `runSession` (fenced
 * checkpoints, save, release) and appends every event to the event log in batches, between a `RUN_START`
 * and a `RUN_END` marker. Interrupts published by any process (through the log) reach the run here.
 */
export class InProcessRunner implements ReplyRunner {
  private readonly runs = new Map<string, Run>();
  private readonly unsubscribe: () => void;
  private draining = false;

  constructor(private readonly options: InProcessRunnerOptions) {
    this.unsubscribe = options.log.onInterrupt((session) => this.runs.get(keyOf(session))?.interrupt.abort());
  }

  async start(request: ReplyRequest): Promise<StartedRun> {
    if (this.draining) throw new ServerDrainingError();
    const { store, log } = this.options;
    const { session } = request;
    const factory = this.options.agent(session.agentId);
    if (!factory) throw new AgentkitError('NOT_FOUND', `There is no agent '${session.agentId}'.`);
    const runId = newId();
    const lease = await SessionLease.acquire(store, session, {
      ttlMs: this.options.leaseTtlMs ?? 30_000,
      owner: `run-${runId}`,
    });
    let after: string | null;
    try {
      after = await log.lastId(session);
    } catch (error) {
      await lease.release();
      throw error;
    }
    const run: Run = {
      userId: session.userId,
      interrupt: new AbortController(),
      suspend: new AbortController(),
      done: Promise.resolve(),
    };
    this.runs.set(keyOf(session), run);

    const batcher = new EventBatcher((events) => log.append(session, events));
    let replyId: string | null = null;
    let started = false;
    let accepted!: () => void;
    const firstEvent = new Promise<void>((resolve) => (accepted = resolve));
    const begin = () => {
      if (started) return;
      started = true;
      batcher.push({ type: 'RUN_START', runId, replyId, createdAt: new Date().toISOString() });
      // A resume event is logged once the reply accepted it, so replaying the log gives the saved message.
      if (isInputEvent(request.input)) batcher.push(request.input);
      accepted();
    };

    const finish = async (status: RunStatus, error: RunEndEvent['error']): Promise<void> => {
      begin();
      batcher.push({ type: 'RUN_END', runId, replyId, status, error, createdAt: new Date().toISOString() });
      try {
        await batcher.flush();
      } catch (flushError) {
        this.options.logger?.error(`agentkit-server: could not log the end of run ${runId}`, flushError);
      }
    };

    const result = runSession({
      store,
      session,
      lease,
      input: request.input,
      ...(request.replyId !== undefined ? { replyId: request.replyId } : {}),
      ...(request.replyOptions ? { replyOptions: request.replyOptions } : {}),
      signal: run.interrupt.signal,
      suspendSignal: run.suspend.signal,
      agent: (state, record) => factory({ state, record, session }),
      onEvent: (event) => {
        if (event.type === 'REPLY_START' || event.type === 'REPLY_SNAPSHOT') replyId = event.replyId;
        else if (replyId === null && 'replyId' in event && typeof event.replyId === 'string')
          replyId = event.replyId;
        begin();
        return batcher.push(event as LogEvent);
      },
    });

    run.done = result
      .then(
        async ({ message, outcome }) => {
          replyId ??= message.id;
          const status: RunStatus =
            message.finishedReason !== null ? 'ended' : outcome === 'suspended' ? 'suspended' : 'paused';
          await finish(status, null);
        },
        async (error: unknown) => {
          if (started) {
            const info = classifyError(error);
            const code = AgentkitError.isInstance(error) ? error.code : 'INTERNAL';
            this.options.logger?.error(`agentkit-server: run ${runId} failed`, error);
            await finish('failed', { ...info, code });
          }
        },
      )
      .finally(async () => {
        if (this.runs.get(keyOf(session)) === run) this.runs.delete(keyOf(session));
        await lease.release();
      });

    // Answer once the reply accepted its input, or refused it: then the caller gets that error, after the
    // lease is released (an immediate retry must not find the session busy).
    try {
      await Promise.race([firstEvent, result.then(() => begin())]);
    } catch (error) {
      await run.done;
      throw error;
    }
    return { runId, after };
  }

  async interrupt(session: SessionKey): Promise<boolean> {
    const run = this.runs.get(keyOf(session));
    if (run) {
      run.interrupt.abort();
      return true;
    }
    await this.options.log.publishInterrupt(session);
    return false;
  }

  runningFor(userId: string): number {
    let n = 0;
    for (const run of this.runs.values()) if (run.userId === userId) n++;
    return n;
  }

  async drain({ graceMs = 10_000, timeoutMs = 30_000 }: { graceMs?: number; timeoutMs?: number } = {}) {
    this.draining = true;
    const all = () => Promise.allSettled([...this.runs.values()].map((r) => r.done));
    // A timer that never outlives the wait: a drained process must be free to exit at once.
    const waited = async (ms: number) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([all(), new Promise((r) => (timer = setTimeout(r, ms)))]);
      clearTimeout(timer);
    };
    await waited(graceMs);
    for (const run of this.runs.values()) run.suspend.abort();
    await waited(Math.max(0, timeoutMs - graceMs));
    for (const run of this.runs.values()) run.interrupt.abort();
    await all();
    this.unsubscribe();
  }
}

function keyOf(session: SessionKey): string {
  return JSON.stringify([session.userId, session.agentId, session.sessionId]);
}
