import {
  AgentkitError,
  type Logger,
  newId,
  type SessionKey,
  SessionLease,
  type SessionStore,
} from '@agentkit/core';
import { ServerDrainingError } from './errors';
import type { EventLog } from './event-log';
import { type AgentFactory, runReply } from './run-reply';
import type { ReplyRequest, ReplyRunner, StartedRun } from './runner';

export type { AgentFactory };

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
 * Runs replies in this process: takes the session's lease and runs the reply with {@link runReply}
 * (`runSession` with fenced checkpoints and a save; every event appended to the event log in batches,
 * between a `RUN_START` and a `RUN_END` marker), then releases the lease. Interrupts published by any
 * process (through the log) reach the run here.
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
    const reply = runReply({
      store,
      log,
      agent: factory,
      request,
      runId,
      lease,
      signal: run.interrupt.signal,
      suspendSignal: run.suspend.signal,
      ...(this.options.logger ? { logger: this.options.logger } : {}),
    });
    run.done = reply.done.then(async () => {
      if (this.runs.get(keyOf(session)) === run) this.runs.delete(keyOf(session));
      await lease.release();
    });

    // Answer once the reply accepted its input, or refused it: then the caller gets that error, after the
    // lease is released (an immediate retry must not find the session busy).
    try {
      await reply.accepted;
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
