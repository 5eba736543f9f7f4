import { createAgentState, createMsg, type Msg, userConfirmResult } from '@agentkit/core';
import { describe, expect, it } from 'vitest';
import { planJob } from './plan-job';
import { answersAwaiting, nextAttempt, parseReplyJob, type ReplyJobData } from './reply-job';

const session = { userId: 'u', agentId: 'a', sessionId: 's' };
const job: ReplyJobData = { session, input: 'hi', replyId: 'r', seq: 1 };
const retryOn = ['rate_limit', 'upstream', 'connection'] as const;

function reply(
  id: string,
  finished: Msg['finishedReason'],
  error?: Msg['error'],
  content: Msg['content'] = [],
) {
  return {
    ...createMsg({ role: 'assistant', name: 'a', content, id }),
    finishedReason: finished,
    error: error ?? null,
  };
}
function stateWith(...messages: Msg[]) {
  const state = createAgentState({ sessionId: 's' });
  state.context.push(createMsg({ role: 'user', content: 'hi' }), ...messages);
  const last = messages.at(-1);
  if (last) state.reply = { id: last.id, iteration: 0, data: {}, finish: null };
  return state;
}
const limited = { type: 'rate_limit' as const, message: '429' };

describe('nextAttempt', () => {
  it('runs the job’s reply with its input when nothing was saved, and continues an unfinished one', () => {
    expect(nextAttempt(undefined, job, { maxReplies: 3, retryOn })).toEqual({
      replyId: 'r',
      input: 'hi',
      retries: 0,
    });
    expect(nextAttempt(stateWith(reply('r', null)), job, { maxReplies: 3, retryOn })).toEqual({
      replyId: 'r',
      input: 'hi',
      retries: 0,
    });
  });

  it('follows a reply that ended with a retryable error by a new one, until maxReplies', () => {
    const failed = stateWith(reply('r', 'error', limited));
    expect(nextAttempt(failed, job, { maxReplies: 3, retryOn })).toEqual({
      replyId: 'r~retry-1',
      input: null,
      retries: 1,
    });
    const twice = stateWith(reply('r', 'error', limited), reply('r~retry-1', 'error', limited));
    expect(nextAttempt(twice, job, { maxReplies: 3, retryOn })).toMatchObject({ replyId: 'r~retry-2' });
    // Out of replies: the last one is the job's answer (returned as it is).
    expect(nextAttempt(twice, job, { maxReplies: 2, retryOn })).toEqual({
      replyId: 'r~retry-1',
      input: null,
      retries: 1,
    });
    // Not retryable.
    const denied = stateWith(reply('r', 'error', { type: 'authentication', message: '401' }));
    expect(nextAttempt(denied, job, { maxReplies: 3, retryOn })).toMatchObject({ replyId: 'r', retries: 0 });
  });
});

describe('planJob', () => {
  const call = {
    type: 'tool_call' as const,
    id: 'c1',
    name: 'deploy',
    input: '{}',
    state: 'asking' as const,
  };
  const paused = stateWith(reply('p', null, null, [call]));
  const record = (state: ReturnType<typeof stateWith>) =>
    ({ userId: 'u', agentId: 'a', sessionId: 's', state, version: 1 }) as never;

  it('gives a resume the paused reply’s id, refuses new input while paused and resumes that answer nothing', () => {
    const confirm = userConfirmResult([
      { confirmed: true, toolCall: { id: 'c1', name: 'deploy', input: '{}' } },
    ]);
    expect(planJob(record(paused), { session, input: confirm })).toEqual({ replyId: 'p', input: confirm });
    expect(() => planJob(record(paused), { session, input: 'more' })).toThrow(
      expect.objectContaining({ code: 'REPLY_PAUSED' }),
    );
    const wrong = userConfirmResult([
      { confirmed: true, toolCall: { id: 'zz', name: 'deploy', input: '{}' } },
    ]);
    expect(() => planJob(record(paused), { session, input: wrong })).toThrow(
      expect.objectContaining({ code: 'RESUME_MISMATCH' }),
    );
    expect(() => planJob(null, { session, input: confirm })).toThrow(
      expect.objectContaining({ code: 'RESUME_MISMATCH' }),
    );
    expect(answersAwaiting(confirm, paused.context.at(-1))).toBe(true);
  });

  it('continues an unfinished reply on input null, and takes the client’s replyId for new input', () => {
    const unfinished = stateWith(reply('u1', null));
    expect(planJob(record(unfinished), { session, input: null })).toEqual({ replyId: 'u1', input: null });
    expect(planJob(record(unfinished), { session, input: 'next', replyId: 'mine' })).toEqual({
      replyId: 'mine',
      input: 'next',
    });
    expect(planJob(null, { session, input: 'first' }).replyId).toMatch(/\S/);
  });
});

describe('parseReplyJob', () => {
  it('refuses data that is not a reply job', () => {
    expect(parseReplyJob(job)).toEqual(job);
    expect(() => parseReplyJob(null)).toThrow();
    expect(() => parseReplyJob({ ...job, replyId: '' })).toThrow(/replyId/);
    expect(() => parseReplyJob({ ...job, seq: 0 })).toThrow(/seq/);
    expect(() => parseReplyJob({ ...job, session: { userId: '', agentId: 'a', sessionId: 's' } })).toThrow();
  });
});
