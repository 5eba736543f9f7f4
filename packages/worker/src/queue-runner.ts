import {
  AgentkitError,
  ConfigError,
  isInputEvent,
  type Logger,
  newId,
  SessionBusyError,
  type SessionKey,
  type SessionStore,
  StoreConnectionError,
} from '@agentkit/core';
import { checkSessionKey } from '@agentkit/core/store';
import {
  type EventLog,
  type ReplyRequest,
  type ReplyRunner,
  ServerDrainingError,
  type StartedRun,
} from '@agentkit/server';
import { type BackoffOptions, type KeepJobs, Queue, QueueEvents } from 'bullmq';
import { isStaleEntry, newJobId } from './job-ids';
import { planJob } from './plan-job';
import { closeClient, withDeadline } from '@agentkit/storage-redis/connection';
import { bullConnection, closeOrDisconnect, ownClient, type QueueConnection } from './redis-connection';
import { REPLY_JOB, type ReplyJobData } from './reply-job';
import { SessionLines } from './session-lines';

/** The queue's name unless one is given. */
export const DEFAULT_QUEUE_NAME = 'agentkit-replies';

/** Options of {@link QueueRunner}. */
export interface QueueRunnerOptions {
  /** Redis for the queue (BullMQ) and the per-session lines: an ioredis client or options. */
  connection: QueueConnection;
  /** The sessions (the same store the workers use): input is checked against the saved session at once. */
  store: SessionStore;
  /** The shared event log clients follow (a `RedisEventLog`, the same the workers write to). */
  eventLog: EventLog;
  /** The BullMQ queue. Default `agentkit-replies`; the workers must use the same. */
  queueName?: string;
  /** BullMQ's key prefix. Default `bull` (`{bull}` on Redis Cluster). */
  prefix?: string;
  /** Prefix of the per-session keys (lines, interrupt marks). Default `agentkit`. */
  keyPrefix?: string;
  /**
   * A reply for a session with a reply running or queued: `reject` (default) refuses it with
   * `SessionBusyError` (HTTP 409), as the in-process runner does; `queue` lines it up behind them (they
   * run one at a time, in arrival order).
   */
  whenBusy?: 'reject' | 'queue';
  /**
   * Replies one job may make: a reply that ends with a retryable provider error (`rate_limit`, `upstream`,
   * `connection`) is followed by another, after `backoff`, until this many. Also the attempts BullMQ
   * grants a job that fails outside the reply (the store unreachable). Default 3.
   */
  attempts?: number;
  /** The delay before a retry. Default exponential from 1000 ms. */
  backoff?: BackoffOptions;
  /** Finished jobs kept in Redis (BullMQ's `removeOnComplete`). Default the last 1000, at most a day. */
  removeOnComplete?: KeepJobs;
  /** Failed jobs kept in Redis (BullMQ's `removeOnFail`). Default the last 5000, at most a week. */
  removeOnFail?: KeepJobs;
  /**
   * How long a call to the queue's Redis (taking a place in line, enqueuing, an interrupt mark) waits
   * before it fails with `StoreConnectionError`, also against a Redis that accepts connections and never
   * answers. Default 5000 (the stores' `commandTimeoutMs`).
   */
  commandTimeoutMs?: number;
  logger?: Logger;
}

/**
 * A `ReplyRunner` for `createAgentServer({ runner })` that runs replies on a pool of worker processes
 * (`startWorker`) through a BullMQ queue: `start` checks the input against the saved session, fixes the
 * reply's id (so every run of the job works on the same reply), takes the session's place in its line and
 * enqueues a job. Clients see no difference: the workers write to the shared event log they follow.
 * @example
 * const eventLog = new RedisEventLog({ url });
 * const app = createAgentServer({
 *   agents, store, eventLog, authenticate,
 *   runner: new QueueRunner({ connection: { url }, store, eventLog }),
 * });
 */
export class QueueRunner implements ReplyRunner {
  /** The BullMQ queue (for dashboards and metrics). */
  readonly queue: Queue<ReplyJobData>;
  /** The queue's events (e.g. for `job.waitUntilFinished(runner.events)`). */
  readonly events: QueueEvents;
  private readonly redis;
  private readonly lines: SessionLines;
  private readonly ready: Promise<unknown>;
  /** Jobs this runner enqueued that have not finished: job id → user id. */
  private readonly pending = new Map<string, string>();
  private draining = false;

  private readonly timeoutMs: number;

  constructor(private readonly options: QueueRunnerOptions) {
    this.timeoutMs = options.commandTimeoutMs ?? 5000;
    if (!Number.isFinite(this.timeoutMs) || this.timeoutMs <= 0)
      throw new ConfigError(`commandTimeoutMs must be a positive number, got ${String(this.timeoutMs)}.`, {
        field: 'commandTimeoutMs',
      });
    const queueName = options.queueName ?? DEFAULT_QUEUE_NAME;
    const connection = bullConnection(options.connection);
    const prefix = options.prefix ?? 'bull';
    this.queue = new Queue(queueName, { connection, prefix }) as Queue<ReplyJobData>;
    this.events = new QueueEvents(queueName, { connection, prefix });
    this.redis = ownClient(options.connection);
    this.lines = new SessionLines(this.redis, options.keyPrefix ?? 'agentkit', queueName);
    const finished = ({ jobId }: { jobId: string }) => this.pending.delete(jobId);
    this.events.on('completed', finished);
    this.events.on('failed', finished);
    this.events.on('removed', finished);
    const report = (error: Error) => options.logger?.warn(`@agentkit/worker: queue: ${error.message}`);
    this.queue.on('error', report);
    this.events.on('error', report);
    this.ready = this.events.waitUntilReady();
    this.ready.catch(() => {});
  }

  /**
   * Enqueues the reply. Throws `SessionBusyError` while a reply of the session runs or waits (with
   * `whenBusy: 'reject'`), `ReplyPausedError`/`ResumeMismatchError` for input the paused (or not paused)
   * session refuses, `ServerDrainingError` after `drain`, `StoreConnectionError` when Redis is down.
   * An interrupt (`USER_INTERRUPT`) for a session with a job waiting marks that job instead.
   */
  async start(request: ReplyRequest): Promise<StartedRun> {
    if (this.draining) throw new ServerDrainingError();
    const session = checkSessionKey(
      request.session?.userId,
      request.session?.agentId,
      request.session?.sessionId,
    );
    const { store, eventLog } = this.options;
    if (isInputEvent(request.input) && request.input.type === 'USER_INTERRUPT') {
      const head = await this.call(() => this.lines.interrupt(session));
      if (head) {
        await eventLog.publishInterrupt(session);
        return { runId: head, after: await eventLog.lastId(session) };
      }
    }
    const jobId = newJobId();
    // Clients follow from the newest entry before the job's first. Read together with taking the place:
    // entries a previous run logs in between (its RUN_END) come before this job's, and followers skip them.
    const [reserved, last] = await Promise.allSettled([
      this.reserve(session, jobId),
      eventLog.lastId(session),
    ]);
    if (reserved.status === 'rejected') {
      // Timed out, it may still take the place when Redis answers: give it back (sent after it on the
      // same connection), or the session's line stays held by a job that never comes for 30 s.
      if (!AgentkitError.isInstance(reserved.reason) || reserved.reason.code === 'STORE_CONNECTION')
        this.call(() => this.lines.leave(session, jobId)).catch(() => {});
      throw reserved.reason;
    }
    const place = reserved.value;
    try {
      if (last.status === 'rejected') throw last.reason;
      const after = last.value;
      const record =
        place.ahead === 0 ? await store.getSession(session.userId, session.agentId, session.sessionId) : null;
      // With replies ahead, the saved session is not what this one will find: the worker refuses then.
      const plan =
        place.ahead === 0
          ? planJob(record, request)
          : { replyId: request.replyId ?? newId(), input: request.input ?? null };
      const data: ReplyJobData = {
        session,
        input: plan.input,
        replyId: plan.replyId,
        ...(request.replyOptions ? { replyOptions: request.replyOptions } : {}),
        seq: place.seq,
      };
      await this.call(() => this.ready);
      await this.call(() =>
        this.queue.add(REPLY_JOB, data, {
          jobId,
          attempts: this.options.attempts ?? 3,
          backoff: this.options.backoff ?? { type: 'exponential', delay: 1000 },
          removeOnComplete: this.options.removeOnComplete ?? { count: 1000, age: 86_400 },
          removeOnFail: this.options.removeOnFail ?? { count: 5000, age: 7 * 86_400 },
        }),
      );
      this.pending.set(jobId, session.userId);
      return { runId: jobId, after };
    } catch (error) {
      await this.call(() => this.lines.leave(session, jobId)).catch(() => {});
      throw error;
    }
  }

  /**
   * Interrupts the session's running reply wherever it runs, and the replies waiting behind it: marks
   * them in Redis (a worker checks the mark when a job starts and every third of the lease ttl, so the
   * interrupt sticks even when the pub/sub message is lost) and publishes through the event log (a
   * running reply ends within milliseconds). `false` when the session has no job.
   */
  async interrupt(session: SessionKey): Promise<boolean> {
    session = checkSessionKey(session?.userId, session?.agentId, session?.sessionId);
    const head = await this.call(() => this.lines.interrupt(session));
    await this.options.eventLog.publishInterrupt(session);
    return head !== null;
  }

  /** Replies of the user enqueued through this runner that have not finished. */
  runningFor(userId: string): number {
    let n = 0;
    for (const user of this.pending.values()) if (user === userId) n++;
    return n;
  }

  /**
   * Stops taking replies (`ServerDrainingError`) and closes the queue's connections. Replies already
   * enqueued are not this process's: the workers run them on.
   */
  async drain(): Promise<void> {
    if (this.draining) return;
    this.draining = true;
    await Promise.allSettled([
      closeOrDisconnect(this.queue),
      closeOrDisconnect(this.events),
      closeClient(this.redis),
    ]);
  }

  /** Same as `drain`. */
  async close(): Promise<void> {
    await this.drain();
  }

  /** Takes the session's place in line; a stale head (its job gone or over) is cleared first. */
  private async reserve(session: SessionKey, jobId: string): Promise<{ seq: number; ahead: number }> {
    const mode = this.options.whenBusy ?? 'reject';
    for (let tries = 0; ; tries++) {
      const place = await this.call(() => this.lines.reserve(session, jobId, mode));
      if ('seq' in place) return place;
      if (tries === 0 && (await this.call(() => isStaleEntry(this.queue, place.busy)))) {
        await this.call(() => this.lines.dropHead(session, place.busy));
        continue;
      }
      throw new SessionBusyError(session, `job ${place.busy}`);
    }
  }

  /** A call to the queue's Redis, bounded by `commandTimeoutMs`; its failures as `StoreConnectionError`. */
  private async call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await withDeadline(
        command(),
        this.timeoutMs,
        undefined,
        () => new StoreConnectionError(`Redis (queue) did not answer within ${this.timeoutMs} ms.`),
      );
    } catch (error) {
      if (AgentkitError.isInstance(error)) throw error;
      throw new StoreConnectionError(`Redis (queue) failed: ${(error as Error)?.message ?? error}`, {
        cause: error,
      });
    }
  }
}
