import {
  type AgentInput,
  awaitingToolCalls,
  isInputEvent,
  isUnfinished,
  newId,
  ReplyPausedError,
  ResumeMismatchError,
  type SessionRecord,
} from '@agentkit/core';
import type { ReplyRequest } from '@agentkit/server';
import { answersAwaiting, findMsg } from './reply-job';

/** What a job will do: its reply id and input. */
export interface JobPlan {
  replyId: string;
  input: AgentInput;
}

/**
 * Fixes a request's reply id from the session as saved, refusing at once what the reply would refuse:
 * new input while a reply is paused (`ReplyPausedError`), a resume that answers nothing the paused reply
 * waits for (`ResumeMismatchError`). A resume or an interrupt of a paused reply gets the paused reply's
 * id, `input: null` on a reply left unfinished gets that reply's id (the job continues it), anything
 * else the client's `replyId` or a new one — so every run of the job works on the same reply.
 */
export function planJob(record: SessionRecord | null, request: ReplyRequest): JobPlan {
  const { input } = request;
  const state = record?.state;
  const current = state?.reply ? findMsg(state, state.reply.id) : undefined;
  const awaiting = state ? awaitingToolCalls(state) : [];
  const fresh = request.replyId ?? newId();
  if (isInputEvent(input)) {
    if (input.type === 'USER_INTERRUPT')
      return { replyId: current && (awaiting.length || isUnfinished(current)) ? current.id : fresh, input };
    if (!current || awaiting.length === 0)
      throw new ResumeMismatchError(`Received ${input.type} but no reply is paused.`);
    if (input.replyId !== undefined && input.replyId !== current.id)
      throw new ResumeMismatchError(
        `${input.type} is for reply '${input.replyId}', but the paused reply is '${current.id}'.`,
      );
    if (!answersAwaiting(input, current))
      throw new ResumeMismatchError(
        `${input.type} does not answer the calls the paused reply waits for (${awaiting.map((c) => `'${c.id}' (${c.state})`).join(', ')}).`,
      );
    return { replyId: current.id, input };
  }
  if (awaiting.length) throw new ReplyPausedError(awaiting.map((c) => c.id));
  const empty = input === null || input === undefined || (Array.isArray(input) && input.length === 0);
  if (empty && current && isUnfinished(current)) return { replyId: current.id, input: null };
  return { replyId: fresh, input: input ?? null };
}
