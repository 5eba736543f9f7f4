import {
  type AgentInput,
  type AgentState,
  type ErrorType,
  type ExternalExecutionResultEvent,
  isInputEvent,
  type Msg,
  type ReplyOptions,
  type SessionKey,
  type UserConfirmResultEvent,
} from '@agentkit/core';
import { checkSessionKey } from '@agentkit/core/store';

/** The name of every reply job in the queue. */
export const REPLY_JOB = 'reply';

/** What a reply job carries (JSON). */
export interface ReplyJobData {
  /** The session the reply belongs to. */
  session: SessionKey;
  /** A user message (or messages), a resume event, or `null` (continue). */
  input: AgentInput;
  /**
   * The reply's id, fixed at enqueue: every run of the job works on this reply, so a job taken over after
   * a crash continues it instead of replying twice. A resume's id is the paused reply's.
   */
  replyId: string;
  /** Per-reply options the agent's plugins read (e.g. `structuredSchema`). */
  replyOptions?: Omit<ReplyOptions, 'signal' | 'checkpoint' | 'replyId' | 'suspendSignal'>;
  /** Its place among the session's jobs (1, 2, …): interrupts mark a session's jobs up to a number. */
  seq: number;
}

/** The id of the `n`th retry of a reply (a new reply continuing the conversation after a provider outage). */
export function retryReplyId(replyId: string, n: number): string {
  return n === 0 ? replyId : `${replyId}~retry-${n}`;
}

/** Checks a job's data (it comes from Redis); throws `InvalidInputError` naming what is wrong. */
export function parseReplyJob(data: unknown): ReplyJobData {
  const d = data as Partial<ReplyJobData> | null;
  if (typeof d !== 'object' || d === null) throw new TypeError('The job carries no data.');
  const session = checkSessionKey(d.session?.userId, d.session?.agentId, d.session?.sessionId);
  if (typeof d.replyId !== 'string' || d.replyId === '') throw new TypeError('The job has no replyId.');
  if (!Number.isSafeInteger(d.seq) || (d.seq as number) < 1) throw new TypeError('The job has no seq.');
  return { ...(d as ReplyJobData), session };
}

/** What a run of a job does: the reply it works on and its input. */
export interface Attempt {
  replyId: string;
  input: AgentInput;
  /** How many replies of the job came before this one (retries after provider outages). */
  retries: number;
}

/**
 * The reply a run of the job works on, from the session's saved state: the job's reply, or the newest of
 * its retries. A reply that ended with a retryable error (and the job has replies left) is followed by a
 * new one (`input: null`: it continues the conversation; tools already recorded are in it and are not run
 * again); any other is run with its own input (continued from its checkpoint, or returned as it is).
 */
export function nextAttempt(
  state: AgentState | undefined,
  job: ReplyJobData,
  options: { maxReplies: number; retryOn: readonly ErrorType[] },
): Attempt {
  let n = 0;
  let last: Msg | undefined;
  for (;;) {
    const found = state ? findMsg(state, retryReplyId(job.replyId, n)) : undefined;
    if (!found) break;
    last = found;
    n++;
  }
  if (!last) return { replyId: job.replyId, input: job.input, retries: 0 };
  const retries = n - 1;
  if (isRetryable(last, options.retryOn) && n < options.maxReplies)
    return { replyId: retryReplyId(job.replyId, n), input: null, retries: n };
  return { replyId: last.id, input: retries === 0 ? job.input : null, retries };
}

/** True for a reply that ended with an error of one of the types. */
export function isRetryable(msg: Msg | undefined, retryOn: readonly ErrorType[]): boolean {
  return msg?.finishedReason === 'error' && !!msg.error && retryOn.includes(msg.error.type);
}

/** The message with this id, newest first. */
export function findMsg(state: AgentState, id: string): Msg | undefined {
  for (let i = state.context.length - 1; i >= 0; i--)
    if (state.context[i]!.id === id) return state.context[i];
  return undefined;
}

/** True for a resume event (an answer to a paused reply). */
export function isResume(input: AgentInput): input is UserConfirmResultEvent | ExternalExecutionResultEvent {
  return isInputEvent(input) && input.type !== 'USER_INTERRUPT';
}

/**
 * True when a resume event answers only calls the message waits for, of the right kind (confirmations
 * answer `asking` calls, external results `submitted` ones).
 */
export function answersAwaiting(
  event: UserConfirmResultEvent | ExternalExecutionResultEvent,
  msg: Msg | undefined,
): boolean {
  const want = event.type === 'USER_CONFIRM_RESULT' ? 'asking' : 'submitted';
  const waiting = new Set(
    (msg?.content ?? []).filter((b) => b.type === 'tool_call' && b.state === want).map((b) => b.id),
  );
  const answered: unknown[] =
    event.type === 'USER_CONFIRM_RESULT'
      ? (event.confirmResults ?? []).map((r) => r?.toolCall?.id)
      : (event.executionResults ?? []).map((r) => r?.id);
  return answered.length > 0 && answered.every((id) => waiting.has(id as string));
}
