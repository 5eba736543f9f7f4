import type { AgentInput, ReplyOptions, SessionKey } from '@agentkit/core';

/** A reply to run for a session. */
export interface ReplyRequest {
  session: SessionKey;
  /** A user message, messages, a resume event, or `null` (continue / recover). */
  input: AgentInput;
  /** An idempotency key: a request repeated with the same id never replies twice. */
  replyId?: string;
  /** Per-reply options the agent's plugins read (e.g. `structuredSchema` as JSON Schema). */
  replyOptions?: Omit<ReplyOptions, 'signal' | 'checkpoint' | 'replyId' | 'suspendSignal'>;
}

/** A run that has started: it holds the session's lease. */
export interface StartedRun {
  runId: string;
  /** The newest log entry before the run's first one (`null`: the log was empty): follow from here. */
  after: string | null;
}

/**
 * Runs replies for the server: in its own process ({@link InProcessRunner}, the default) or on a pool of
 * workers (a queue runner). Whatever runs a reply writes its events to the shared event log, which is
 * what clients follow.
 */
export interface ReplyRunner {
  /**
   * Starts a reply. Resolves once the run is certain to go ahead (it holds the session, or its place in
   * line); throws `SessionBusyError` when another reply of the session runs, `ServerDrainingError` while
   * shutting down, and input errors the reply refuses at once.
   */
  start(request: ReplyRequest): Promise<StartedRun>;
  /** Interrupts the session's running reply wherever it runs; `false` when none runs here and none was known. */
  interrupt(session: SessionKey): Promise<boolean>;
  /** Replies of a user running in this process right now (for the per-user limit). */
  runningFor(userId: string): number;
  /**
   * Stops taking replies, lets running ones finish for `graceMs`, then suspends the rest at their next
   * safe point (saved unfinished, for another process to continue) and, after `timeoutMs`, interrupts
   * whatever still runs.
   */
  drain(options?: { graceMs?: number; timeoutMs?: number }): Promise<void>;
}
