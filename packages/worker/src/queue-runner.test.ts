import { replayEvents } from '@agentkit/core';
import { describe, expect, it } from 'vitest';
import { post, runEnd, settled, world } from '../test/fixture';
import { agentEvents, readSse } from '@agentkit/server/testing';
import { keysOf } from '../test/world';
import { SessionLines } from './session-lines';

describe('QueueRunner with a worker', () => {
  it('runs a reply on the worker: the SSE response streams it, and it reduces to the stored message', async () => {
    const w = await world('basic');
    await w.addWorker();
    const res = await w.user('/agents/ops/sessions/s1/replies', {
      method: 'POST',
      headers: { Accept: 'text/event-stream' },
      body: JSON.stringify({ input: 'Deploy.' }),
    });
    expect(res.status).toBe(200);
    const { messages } = await readSse(res);
    expect(messages[0]!.event).toMatchObject({ type: 'RUN_START' });
    const end = messages.at(-1)!.event;
    expect(end).toMatchObject({ type: 'RUN_END', status: 'ended' });
    const record = await w.shared.store.getSession('alice', 'ops', 's1');
    const stored = record!.state.context.at(-1)!;
    expect(stored.finishedReason).toBe('completed');
    expect(replayEvents(agentEvents(messages))).toEqual(stored);
    // Each deploy ran once.
    const calls = stored.content.filter((b) => b.type === 'tool_call' && b.name === 'deploy');
    expect(calls).toHaveLength(2);
    for (const call of calls)
      expect(await w.shared.book.get(`${keysOf(w.config).book}:exec:${call.id}`)).toBe('1');
  });
});

describe('QueueRunner: the server’s semantics', () => {
  it('answers 409 SESSION_BUSY while a reply of the session is queued or running', async () => {
    const w = await world('busy');
    const first = await post(w.user, 's1', { input: 'Deploy.' });
    expect(first.status).toBe(202);
    // Queued (no worker yet): busy.
    expect(await post(w.user, 's1', { input: 'Again.' })).toMatchObject({
      status: 409,
      body: { code: 'SESSION_BUSY' },
    });
    // Another session is not.
    expect((await post(w.user, 's2', { input: 'Deploy.' })).status).toBe(202);
    await w.addWorker();
    await runEnd(w, 's1', first.body.runId!);
    // Over: the next one goes through.
    let next = await post(w.user, 's1', { input: 'Again.' });
    for (let i = 0; next.status === 409 && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 20)); // the worker leaves the line just after RUN_END
      next = await post(w.user, 's1', { input: 'Again.' });
    }
    expect(next.status).toBe(202);
    expect(await runEnd(w, 's1', next.body.runId!)).toMatchObject({ status: 'ended' });
  });

  it('refuses new input while a reply is paused and a resume that answers nothing, before enqueuing', async () => {
    const w = await world('paused');
    await w.addWorker();
    const first = await post(w.user, 's1', { input: 'Deploy.' }, 'guarded');
    expect(await runEnd(w, 's1', first.body.runId!, 'guarded')).toMatchObject({ status: 'paused' });
    let blocked = await post(w.user, 's1', { input: 'Something else.' }, 'guarded');
    for (let i = 0; blocked.body.code === 'SESSION_BUSY' && i < 50; i++) {
      await new Promise((r) => setTimeout(r, 20));
      blocked = await post(w.user, 's1', { input: 'Something else.' }, 'guarded');
    }
    expect(blocked).toMatchObject({ status: 409, body: { code: 'REPLY_PAUSED' } });
    const wrong = await post(
      w.user,
      's1',
      {
        input: {
          type: 'EXTERNAL_EXECUTION_RESULT',
          executionResults: [{ id: 'x', output: 'no', state: 'success' }],
        },
      },
      'guarded',
    );
    expect(wrong).toMatchObject({ status: 409, body: { code: 'RESUME_MISMATCH' } });
    // Nothing was enqueued for them: the queue holds the first job only.
    await settled(w);
    expect(await w.server.runner.queue.getJobCounts('wait', 'delayed', 'active', 'completed')).toEqual({
      wait: 0,
      delayed: 0,
      active: 0,
      completed: 1,
    });
    // A confirmation of the waiting call resumes the paused reply (same reply id) on the worker.
    const record = await w.shared.store.getSession('alice', 'guarded', 's1');
    const paused = record!.state.context.at(-1)!;
    const call = paused.content.find((b) => b.type === 'tool_call')!;
    const resume = await post(
      w.user,
      's1',
      {
        input: {
          type: 'USER_CONFIRM_RESULT',
          confirmResults: [{ confirmed: true, toolCall: { id: call.id, name: 'deploy', input: '{"n":0}' } }],
        },
      },
      'guarded',
    );
    expect(resume.status).toBe(202);
    expect(await runEnd(w, 's1', resume.body.runId!, 'guarded')).toMatchObject({
      status: 'paused', // the second deploy asks again
      replyId: paused.id,
    });
    const after = await w.shared.store.getSession('alice', 'guarded', 's1');
    expect(after!.state.context.at(-1)!.id).toBe(paused.id);
    expect(await w.shared.book.get(`${keysOf(w.config).book}:exec:${call.id}`)).toBe('1');
  });
});

describe('QueueRunner: bad sessions', () => {
  it('start and interrupt refuse a malformed session with InvalidInputError, touching nothing', async () => {
    const w = await world('bad-session');
    for (const session of [
      undefined,
      {},
      { userId: 'u', agentId: 'a' },
      { userId: 'u', agentId: 'a', sessionId: 5 },
    ])
      for (const call of [
        () => w.server.runner.start({ session: session as never, input: 'Hi' }),
        () => w.server.runner.interrupt(session as never),
      ])
        await expect(call()).rejects.toMatchObject({ code: 'INVALID_INPUT' });
  });
});

describe('QueueRunner: stale places in line', () => {
  it('clears a place left by a process that died while enqueuing (after 30 s), not a fresh one', async () => {
    const w = await world('stale');
    const lines = new SessionLines(w.shared.book, keysOf(w.config).lines, 'agentkit-replies');
    const s1 = { userId: 'alice', agentId: 'ops', sessionId: 's1' };
    const s2 = { userId: 'alice', agentId: 'ops', sessionId: 's2' };
    await lines.reserve(s1, `${Date.now() - 31_000}-died-while-enqueuing`, 'queue');
    await lines.reserve(s2, `${Date.now()}-still-enqueuing`, 'queue');
    const cleared = await post(w.user, 's1', { input: 'Deploy.' });
    expect(cleared.status).toBe(202);
    expect(await post(w.user, 's2', { input: 'Deploy.' })).toMatchObject({
      status: 409,
      body: { code: 'SESSION_BUSY' },
    });
    await w.addWorker();
    expect(await runEnd(w, 's1', cleared.body.runId!)).toMatchObject({ status: 'ended' });
  });
});
