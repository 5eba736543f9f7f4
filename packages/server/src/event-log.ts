import type { AgentEvent, ErrorInfo, InputEvent, SessionKey } from '@agentkit/core';

/** A run of the session's reply began in some process (a new reply, a resume, a recovery). */
export interface RunStartEvent {
  type: 'RUN_START';
  /** Unique per run. */
  runId: string;
  /** The reply this run works on (known at once for resumes and recoveries, else from its `REPLY_START`). */
  replyId: string | null;
  createdAt: string;
}

/** How a run ended. */
export type RunStatus =
  /** The reply ended (`REPLY_END` came before). */
  | 'ended'
  /** The reply paused for confirmations or external results. */
  | 'paused'
  /** The process stopped at a safe point (shutdown); another run continues the reply. */
  | 'suspended'
  /** The run failed outside the reply (lease lost, store unreachable, bad input): see `error`. */
  | 'failed';

/** A run ended. Followers of the run stop here. */
export interface RunEndEvent {
  type: 'RUN_END';
  runId: string;
  replyId: string | null;
  status: RunStatus;
  /** Why a `failed` run failed: a code (`LEASE_LOST`, `STORE_CONNECTION`, …) and a safe message. */
  error: (ErrorInfo & { code: string }) | null;
  createdAt: string;
}

/**
 * Sent to a follower (never stored) whose position the log no longer keeps: entries it had not read were
 * dropped by the log's bound. The stream ends after it; the client reloads the session (its messages)
 * and follows again without `Last-Event-ID`.
 */
export interface StreamGapEvent {
  type: 'STREAM_GAP';
  /** The oldest entry the log still keeps. */
  firstId: string | null;
}

/** What the log holds: the agent's events, the input events that resumed replies, and run markers. */
export type LogEvent = AgentEvent | InputEvent | RunStartEvent | RunEndEvent | StreamGapEvent;

/** One entry of a session's event log. */
export interface LogEntry {
  /**
   * Its position: ids of a session's log only grow (in the order entries were appended) and are what SSE
   * `id:` and `Last-Event-ID` carry.
   */
  id: string;
  event: LogEvent;
  /** The event's JSON text, when the log has it at hand (a follower then sends it as it is). */
  json?: string;
}

/**
 * Each session's events, appended before anyone sees them, so that a client that reconnects gets exactly
 * what it missed and a client connected to one process follows a reply running in another. Bounded:
 * old entries of a long session are dropped (`read` then starts at the oldest kept one). Also carries
 * interrupts to whichever process runs a session's reply.
 *
 * Implementations: {@link InMemoryEventLog} (one process) and `RedisEventLog` from
 * `@agentkit/server/redis` (Redis Streams, any number of processes).
 */
export interface EventLog {
  /** Appends events in order; resolves with their ids once they are in the log. */
  append(session: SessionKey, events: readonly LogEvent[]): Promise<string[]>;
  /**
   * Up to `limit` entries after `after` (exclusive; `null`: from the oldest kept), oldest first. Throws
   * `InvalidInputError` for an id this log never hands out.
   */
  read(session: SessionKey, after: string | null, limit: number): Promise<LogEntry[]>;
  /** Up to `limit` entries before `before` (exclusive; `null`: from the newest), newest first. */
  readBackward(session: SessionKey, before: string | null, limit: number): Promise<LogEntry[]>;
  /** The id of the newest entry, or `null` for an empty log. */
  lastId(session: SessionKey): Promise<string | null>;
  /**
   * The id of the oldest entry the log still keeps, or `null` for an empty log. A reader whose position
   * is older has missed entries the bound dropped.
   */
  firstId(session: SessionKey): Promise<string | null>;
  /**
   * The id of the newest entry the log dropped for its bound, `null` when it dropped none (a reader at any
   * position has missed nothing), or `undefined` when the log cannot tell. Optional: without it, a reader
   * older than {@link EventLog.firstId} counts as having missed entries, which reports a gap for a position
   * such as `0-0` on a log that never dropped anything.
   */
  droppedThrough?(session: SessionKey): Promise<string | null | undefined>;
  /**
   * Resolves once the log may hold entries after `after` — at once when it already does — or after
   * `timeoutMs`, or when `signal` aborts. Rejects only with `InvalidInputError` for a bad session key or
   * an id this log never hands out (and `StoreConnectionError` when the backend is unreachable).
   */
  waitFor(session: SessionKey, after: string | null, timeoutMs: number, signal: AbortSignal): Promise<void>;
  /** Deletes the session's log. */
  delete(session: SessionKey): Promise<void>;
  /** Asks whichever process runs the session's reply to interrupt it. */
  publishInterrupt(session: SessionKey): Promise<void>;
  /** Calls `listener` for every interrupt published by any process; returns a function that unsubscribes. */
  onInterrupt(listener: (session: SessionKey) => void): () => void;
  /** Releases connections and timers. */
  close(): Promise<void>;
}
