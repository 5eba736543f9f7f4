import { createAgentState } from '@agentkit/core';
import { pausedStateFixture } from '@agentkit/core/testing';
import { describe, expect, it } from 'vitest';
import type { LogEvent } from './event-log';
import { InMemoryEventLog } from './in-memory-event-log';
import { latestReplyStart } from './latest-reply-start';

const session = { userId: 'u', agentId: 'a', sessionId: 's' };
const at = '2026-01-01T00:00:00.000Z';
const runStart = (runId: string): LogEvent => ({ type: 'RUN_START', runId, replyId: runId, createdAt: at });
const replyStart = (replyId: string): LogEvent =>
  ({ type: 'REPLY_START', replyId, name: 'ops', createdAt: at }) as LogEvent;
const delta: LogEvent = { type: 'TEXT_BLOCK_DELTA', replyId: 'r', blockId: 'b', delta: 'x' };
const paused = pausedStateFixture();

describe('latestReplyStart', () => {
  it('starts after the entry before the newest REPLY_START, or before a newer REPLY_SNAPSHOT', async () => {
    const log = new InMemoryEventLog();
    const ids = await log.append(session, [runStart('1'), replyStart('r1'), delta, runStart('2')]);
    const [second] = await log.append(session, [replyStart('r2'), delta, delta]);
    expect(await latestReplyStart(log, session, paused)).toEqual({ after: ids[3] });
    await log.append(session, [
      { type: 'REPLY_SNAPSHOT', replyId: 'r2', message: paused.context[1]!, createdAt: at },
    ]);
    const last = (await log.read(session, second!, 10)).at(-2)!.id;
    expect(await latestReplyStart(log, session, paused)).toEqual({ after: last });
  });

  it('starts at the beginning (`after: null`) when the reply starts at the oldest entry', async () => {
    const log = new InMemoryEventLog();
    await log.append(session, [replyStart('r1'), delta]);
    expect(await latestReplyStart(log, session, paused)).toEqual({ after: null });
  });

  it('when the log no longer holds the start: at its end, after a snapshot of the reply as saved', async () => {
    const log = new InMemoryEventLog({ maxEntriesPerSession: 3 });
    await log.append(session, [replyStart('reply-1'), delta, delta, delta, delta]);
    const { after, prelude } = await latestReplyStart(log, session, paused);
    expect(after).toBe(await log.lastId(session));
    expect(prelude).toEqual([
      {
        type: 'REPLY_SNAPSHOT',
        replyId: 'reply-1',
        message: paused.context[1],
        createdAt: expect.any(String),
      },
    ]);
    const none = await latestReplyStart(
      new InMemoryEventLog(),
      session,
      createAgentState({ sessionId: 's' }),
    );
    expect(none).toEqual({ after: null });
  });
});
