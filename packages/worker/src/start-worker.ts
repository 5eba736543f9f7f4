import {
  AgentkitError,
  ConfigError,
  type ErrorType,
  isUnfinished,
  type Logger,
  SessionBusyError,
  type SessionKey,
  SessionLease,
  type Msg,
} from '@agentkit/core';
import { type AgentFactory, type LogEvent, type ReplyRunOutcome, runReply } from '@agentkit/server';
import { DelayedError, Job, Queue, UnrecoverableError, WaitingError, Worker } from 'bullmq';
import { isStaleEntry } from './job-ids';
import { DEFAULT_QUEUE_NAME } from './queue-runner';
import { closeClient } from '@agentkit/storage-redis/connection';
import { bullConnection, closeOrDisconnect, ownClient } from './redis-connection';
import {
  type Attempt,
  answersAwaiting,
  findMsg,
  isResume,
  isRetryable,
  nextAttempt,
  parseReplyJob,
  type ReplyJobData,
} from './reply-job';
import { runHistory } from './run-history';
import { SessionLines } from './session-lines';
import type { StartWorkerOptions } from './start-worker-options';

/** What a job's processor returns: how the job ended (BullMQ keeps it as the job's return value). */
export interface ReplyJobResult {
  /**
   * The run's status, or `over` for a job whose run had ended before this worker took it. (A job that
   * never had a place in its session's line fails, nothing run.)
   */
  status: 'ended' | 'paused' | 'failed' | 'over';
  /** The reply the job ended with. */
  replyId: string | null;
  /** Replies made after provider outages. */
  retries: number;
}

/** A running worker (see {@link startWorker}). */
export interface ReplyWorker {
  /** The BullMQ worker (events, metrics). */
  readonly worker: Worker<ReplyJobData, ReplyJobResult>;
  /** Replies running in this process now. */
  readonly running: number;
  /** Resolves once the worker is connected and takes jobs. */
  waitUntilReady(): Promise<void>;
  /**
   * Shuts down gracefully: takes no more jobs, suspends running replies at their next safe point (saved
   * unfinished) and hands their jobs back to the queue (no attempt used), where another worker continues
   * them; closes the worker's connections (not the store's or the event log's).
   */
  close(): Promise<void>;
}

interface Run {
  jobId: string;
  session: SessionKey;
  seq: number;
  interrupt: AbortController;
  suspend: AbortController;
}

const RETRY_ON: ErrorType[] = ['rate_limit', 'upstream', 'connection'];

/**
 * Starts a worker process's share of the pool: takes reply jobs from the queue (enqueued by
 * `QueueRunner`) and runs each exactly like the server's in-process runner would — under the session's
 * lease, events appended to the shared event log between `RUN_START` and `RUN_END`, checkpoints before
 * and after every tool with side effects, saved at the end.
 *
 * - **Order per session**: a session's jobs run one at a time, in arrival order (its line in Redis); a job
 *   whose turn has not come waits in BullMQ's delayed set without using an attempt and is woken when
 *   the job ahead ends, while other sessions' jobs run on.
 * - **Takeover**: a worker that dies mid-reply stops renewing its job's lock; BullMQ's stalled check hands
 *   the job to another worker, which continues the reply from its last checkpoint (same reply id; recorded
 *   tools are not run again) and starts with a `REPLY_SNAPSHOT`, so clients drop what the dead worker
 *   streamed after it.
 * - **Interrupts** from any process arrive through the event log's channel, and stick through a mark in
 *   Redis checked when a job starts and every third of `leaseTtlMs`.
 * - **Provider outages**: a reply that ends with a retryable error is followed, after the runner's
 *   backoff, by a new reply continuing the conversation (`<replyId>~retry-<n>`, `input: null`).
 * @example
 * const worker = startWorker({ agents, store, eventLog, connection: { url }, handleSignals: true });
 */
export function startWorker(options: StartWorkerOptions): ReplyWorker {
  const agents = new Map<string, AgentFactory>();
  for (const [id, definition] of Object.entries(options.agents ?? {}))
    agents.set(id, typeof definition === 'function' ? definition : definition.build);
  if (agents.size === 0) throw new ConfigError('startWorker needs at least one agent.', { field: 'agents' });
  if (!options.store) throw new ConfigError('startWorker needs a `store`.', { field: 'store' });
  if (!options.eventLog) throw new ConfigError('startWorker needs an `eventLog`.', { field: 'eventLog' });
  const positive = (field: keyof StartWorkerOptions, fallback: number) => {
    const value = (options[field] as number | undefined) ?? fallback;
    if (!Number.isFinite(value) || value <= 0)
      throw new ConfigError(`${field} must be a positive number, got ${String(value)}.`, { field });
    return value;
  };
  const concurrency = positive('concurrency', 8);
  const leaseTtlMs = positive('leaseTtlMs', 5000);
  // What every store accepts (core's checkLeaseOptions): else every job would fail at its first lease.
  if (!Number.isInteger(leaseTtlMs) || leaseTtlMs < 100 || leaseTtlMs > 86_400_000)
    throw new ConfigError(`leaseTtlMs must be an integer from 100 to 86400000 (a day), got ${leaseTtlMs}.`, {
      field: 'leaseTtlMs',
    });
  const lockDuration = positive('lockDurationMs', 5000);
  const stalledInterval = positive('stalledIntervalMs', 2500);
  const maxStalledCount = positive('maxStalledCount', 10);
  const parkMs = positive('parkMs', 5000);
  const shutdownTimeoutMs = positive('shutdownTimeoutMs', 30_000);
  const maxPerUser = options.maxRunningRepliesPerUser;
  if (maxPerUser !== undefined) positive('maxRunningRepliesPerUser', maxPerUser);
  const retryOn = options.retryOn ?? RETRY_ON;
  const logger: Logger = options.logger ?? console;
  const { store, eventLog } = options;
  const queueName = options.queueName ?? DEFAULT_QUEUE_NAME;
  const prefix = options.prefix ?? 'bull';
  const connection = bullConnection(options.connection);
  const redis = ownClient(options.connection);
  const lines = new SessionLines(redis, options.keyPrefix ?? 'agentkit', queueName);
  const queue = new Queue(queueName, { connection, prefix });
  queue.on('error', (error) => logger.warn(`@agentkit/worker: queue: ${error.message}`));
  const runs = new Map<string, Run>();
  let closing: Promise<void> | undefined;

  /** Moves the job to the delayed set for `ms` (no attempt used); `recheck` may wake it at once. */
  const park = async (
    job: Job<ReplyJobData>,
    token: string,
    ms: number,
    recheck?: () => Promise<boolean>,
  ) => {
    await job.moveToDelayed(Date.now() + Math.max(0, Math.round(ms)), token);
    // The job ahead may have ended (and found nothing to wake) while this one was active.
    if (recheck && (await recheck())) await job.promote().catch(() => {});
    throw new DelayedError();
  };

  /** Hands the job back to the front of the queue (no attempt used), for another worker. */
  const handBack = async (job: Job<ReplyJobData>, token: string): Promise<never> => {
    await job.moveToWait(token);
    throw new WaitingError();
  };

  /** Leaves the session's line and wakes the job now at its head. */
  const leaveLine = async (session: SessionKey, jobId: string) => {
    const next = await lines.leave(session, jobId);
    if (next) await (await Job.fromId(queue, next))?.promote().catch(() => {});
  };

  const processor = async (
    job: Job<ReplyJobData, ReplyJobResult>,
    token?: string,
  ): Promise<ReplyJobResult> => {
    const lock = token as string;
    let data: ReplyJobData;
    try {
      data = parseReplyJob(job.data);
    } catch (error) {
      throw new UnrecoverableError(`Not a reply job: ${(error as Error).message}`);
    }
    if (closing) return await handBack(job, lock);
    const { session } = data;
    const progress = { ran: false };
    try {
      // `return await`: a parked job's DelayedError must reach the catch below before the `finally` awaits,
      // or Node reports it as an unhandled rejection while the `finally` runs.
      const place = await lines.place(session, job.id!);
      if (place.place === 'gone') {
        // A run of this job is over (delivered again after its worker died), or the job never had a
        // place: put onto the queue by something other than a QueueRunner, or its enqueue failed.
        const history = await runHistory(eventLog, session, job.id!);
        if (history.started || history.ended) return { status: 'over', replyId: null, retries: 0 };
        throw new UnrecoverableError(
          `Not in its session's line: job ${job.id} was not enqueued by a QueueRunner (or its enqueue failed); nothing ran.`,
        );
      }
      if (place.place === 'behind') {
        if (place.head && (await isStaleEntry(queue, place.head))) {
          await lines.dropHead(session, place.head);
          return await park(job, lock, 0);
        }
        return await park(
          job,
          lock,
          parkMs,
          async () => (await lines.place(session, job.id!)).place === 'head',
        );
      }
      if (
        maxPerUser !== undefined &&
        !(await lines.enterUser(session.userId, job.id!, maxPerUser, leaseTtlMs * 3))
      )
        return await park(job, lock, 250);
      return await runJob(job, lock, data, place.interruptedThrough, progress);
    } catch (error) {
      // Out of attempts before the reply ran (the store unreachable): clients following the run must
      // learn that it failed, and the session's line must move on. (After it ran, `RUN_END` is logged.)
      if (!progress.ran && !isMoved(error) && job.attemptsMade + 1 >= (job.opts.attempts ?? 1))
        await giveUp(data, job.id!, {
          code: AgentkitError.isInstance(error) ? error.code : 'INTERNAL',
          message: AgentkitError.isInstance(error) ? error.message : 'The reply job failed.',
        });
      throw error;
    } finally {
      if (maxPerUser !== undefined) await lines.leaveUser(session.userId, job.id!).catch(() => {});
    }
  };

  /** Logs the end of a run that failed without running its reply, and moves the session's line on. */
  const giveUp = async (
    data: ReplyJobData,
    runId: string,
    { code, message }: { code: string; message: string },
  ) => {
    const at = new Date().toISOString();
    try {
      await eventLog.append(data.session, [
        { type: 'RUN_START', runId, replyId: data.replyId, createdAt: at },
        {
          type: 'RUN_END',
          runId,
          replyId: data.replyId,
          status: 'failed',
          error: { type: 'internal', message, code },
          createdAt: at,
        },
      ]);
      await leaveLine(data.session, runId);
    } catch (reportError) {
      logger.error(`@agentkit/worker: could not report the failure of job ${runId}`, reportError);
    }
  };

  const runJob = async (
    job: Job<ReplyJobData, ReplyJobResult>,
    token: string,
    data: ReplyJobData,
    interruptedThrough: number,
    progress: { ran: boolean },
  ): Promise<ReplyJobResult> => {
    const { session } = data;
    const jobId = job.id!;
    let lease: SessionLease;
    try {
      lease = await SessionLease.acquire(store, session, { ttlMs: leaseTtlMs, owner: `job ${jobId}` });
    } catch (error) {
      // Held by a worker that died (until its lease expires) or by one that still finishes this job.
      if (
        error instanceof SessionBusyError ||
        (AgentkitError.isInstance(error) && error.code === 'SESSION_BUSY')
      ) {
        const expiresAt = (error as SessionBusyError).expiresAt;
        const wait = expiresAt === null ? leaseTtlMs / 2 : Math.min(leaseTtlMs, expiresAt - Date.now());
        return await park(job, token, Math.max(50, wait + 20));
      }
      throw error;
    }
    const run: Run = {
      jobId,
      session,
      seq: data.seq,
      interrupt: new AbortController(),
      suspend: new AbortController(),
    };
    runs.set(jobId, run);
    try {
      if (interruptedThrough >= data.seq) run.interrupt.abort();
      if (closing) run.suspend.abort();
      const maxReplies = job.opts.attempts ?? 1;
      // A job started before (a takeover, or a retry) looks at what its earlier runs left.
      const again = job.attemptsStarted > 1 || job.attemptsMade > 0;
      const history = again ? await runHistory(eventLog, session, jobId) : { started: false, ended: null };
      if (history.ended) {
        await lease.release();
        await leaveLine(session, jobId);
        return { status: history.ended === 'suspended' ? 'ended' : history.ended, replyId: null, retries: 0 };
      }
      const record = again
        ? await store.getSession(session.userId, session.agentId, session.sessionId)
        : null;
      const attempt: Attempt = again
        ? nextAttempt(record?.state, data, { maxReplies, retryOn })
        : { replyId: data.replyId, input: data.input, retries: 0 };
      const saved = record ? findMsg(record.state, attempt.replyId) : undefined;
      // A resume the saved reply already applied (it paused again since) is not applied twice.
      if (saved && isResume(attempt.input) && !answersAwaiting(attempt.input, saved)) attempt.input = null;
      const prelude = history.started ? takeoverPrelude(saved) : [];
      const factory = agents.get(session.agentId);
      progress.ran = true;
      const reply = runReply({
        store,
        log: eventLog,
        agent:
          factory ??
          (() => {
            throw new AgentkitError('NOT_FOUND', `This worker has no agent '${session.agentId}'.`);
          }),
        request: {
          session,
          input: attempt.input,
          replyId: attempt.replyId,
          ...(data.replyOptions ? { replyOptions: data.replyOptions } : {}),
        },
        runId: jobId,
        lease,
        signal: run.interrupt.signal,
        suspendSignal: run.suspend.signal,
        logger,
        prelude,
        logRefusal: true,
        endsRun: (outcome) => next(outcome, job, attempt, maxReplies) === 'end',
      });
      const outcome = await reply.done;
      const then = next(outcome, job, attempt, maxReplies);
      runs.delete(jobId);
      await lease.release();
      if (then === 'hand back') return await handBack(job, token);
      if (then === 'lost') return await park(job, token, leaseTtlMs);
      if (then === 'retry')
        throw new Error(
          `The reply ${outcome.replyId} failed (${outcome.result?.message.error?.type ?? outcome.error?.code}); retrying.`,
        );
      await leaveLine(session, jobId);
      if (outcome.status === 'failed')
        throw new UnrecoverableError(`${outcome.error?.code}: ${outcome.error?.message}`);
      return {
        status: outcome.status === 'paused' ? 'paused' : 'ended',
        replyId: outcome.replyId,
        retries: attempt.retries,
      };
    } finally {
      runs.delete(jobId);
      await lease.release();
    }
  };

  /** What comes after a run: the job ends, goes back to the queue, retries, or lost its session. */
  const next = (
    outcome: ReplyRunOutcome,
    job: Job<ReplyJobData>,
    attempt: Attempt,
    maxReplies: number,
  ): 'end' | 'hand back' | 'retry' | 'lost' => {
    if (outcome.status === 'suspended') return 'hand back';
    if (outcome.error?.code === 'LEASE_LOST') return 'lost';
    const attemptsLeft = job.attemptsMade + 1 < maxReplies;
    if (outcome.status === 'ended' && isRetryable(outcome.result?.message, retryOn))
      return attemptsLeft && attempt.retries + 1 < maxReplies ? 'retry' : 'end';
    if (outcome.error?.code === 'STORE_CONNECTION' && attemptsLeft) return 'retry';
    return 'end';
  };

  const worker = new Worker<ReplyJobData, ReplyJobResult>(queueName, processor, {
    connection,
    prefix,
    concurrency,
    lockDuration,
    stalledInterval,
    maxStalledCount,
    ...(options.limiter ? { limiter: options.limiter } : {}),
    ...(options.name ? { name: options.name } : {}),
  });
  worker.on('error', (error) => logger.warn(`@agentkit/worker: ${error.message}`));
  // A job that stalled more than `maxStalledCount` times (its workers kept dying) is failed by BullMQ
  // without reaching a processor (the next worker to take it fails it): its followers must still see the
  // run end, and its session's line must move on.
  worker.on('failed', (job, error) => {
    if (!job?.id || !/stalled more than allowable limit/.test(error?.message ?? '')) return;
    giveUp(job.data, job.id, {
      code: 'JOB_STALLED',
      message: `The reply job stalled more than ${maxStalledCount} times (the workers running it stopped).`,
    }).catch((reportError) => logger.warn(`@agentkit/worker: stalled job ${job.id}: ${reportError.message}`));
  });

  // Interrupts: pub/sub for speed (a running reply ends within milliseconds), the marks for certainty.
  const interruptRuns = async (sessions: SessionKey[]) => {
    const marks = await lines.interruptMarks(sessions);
    sessions.forEach((session, i) => {
      for (const run of runs.values())
        if (sameSession(run.session, session) && run.seq <= marks[i]!) run.interrupt.abort();
    });
  };
  const unsubscribe = eventLog.onInterrupt((session) => {
    if ([...runs.values()].some((r) => sameSession(r.session, session)))
      interruptRuns([session]).catch((error) => logger.warn(`@agentkit/worker: interrupt: ${error.message}`));
  });
  const tick = setInterval(() => {
    const live = [...runs.values()];
    if (live.length === 0) return;
    interruptRuns(live.map((r) => r.session)).catch(() => {});
    if (maxPerUser !== undefined)
      for (const run of live)
        lines
          .enterUser(run.session.userId, run.jobId, Number.MAX_SAFE_INTEGER, leaseTtlMs * 3)
          .catch(() => {});
  }, leaseTtlMs / 3);
  tick.unref();

  const close = () =>
    (closing ??= (async () => {
      for (const run of runs.values()) run.suspend.abort();
      const closed = worker.close();
      const timedOut = await Promise.race([
        closed.then(
          () => false,
          () => false,
        ),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(true), shutdownTimeoutMs).unref()),
      ]);
      if (timedOut) {
        logger.warn(
          `@agentkit/worker: ${runs.size} replies did not reach a safe point within ${shutdownTimeoutMs} ms; other workers take them over.`,
        );
        // A Redis that does not answer (frozen) would keep even a forced close waiting: then disconnect.
        await closeOrDisconnect({ close: () => worker.close(true), disconnect: () => worker.disconnect() });
      }
      clearInterval(tick);
      unsubscribe();
      await Promise.allSettled([closeOrDisconnect(queue), closeClient(redis)]);
    })());

  if (options.handleSignals)
    for (const signal of ['SIGTERM', 'SIGINT'] as const)
      process.once(signal, () => {
        close().finally(() => process.exit(0));
      });

  return {
    worker,
    get running() {
      return runs.size;
    },
    waitUntilReady: () => worker.waitUntilReady().then(() => undefined),
    close,
  };
}

/**
 * What a run that takes over a job logs after `RUN_START`: the reply as saved, when it is paused or over
 * (a reply left unfinished gets its snapshot from `runSession`, and one never saved starts anew with
 * `REPLY_START`), so clients drop whatever the dead worker streamed after its last checkpoint.
 */
function takeoverPrelude(saved: Msg | undefined): LogEvent[] {
  if (!saved || isUnfinished(saved)) return [];
  return [{ type: 'REPLY_SNAPSHOT', replyId: saved.id, message: saved, createdAt: new Date().toISOString() }];
}

/** True for the errors that say the processor moved the job (BullMQ leaves it where it is). */
function isMoved(error: unknown): boolean {
  return (
    error instanceof DelayedError || error instanceof WaitingError || error instanceof UnrecoverableError
  );
}

function sameSession(a: SessionKey, b: SessionKey): boolean {
  return a.userId === b.userId && a.agentId === b.agentId && a.sessionId === b.sessionId;
}
