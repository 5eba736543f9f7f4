import type { SessionKey } from '@agentkit/core';
import { keysOf } from '../test/world';
import { SessionLines } from './session-lines';
import { describe, expect, it } from 'vitest';
import { post, runEnd, world } from '../test/fixture';

const s = (sessionId: string, userId = 'alice', agentId = 'ops') => ({ userId, agentId, sessionId });

describe('hostile jobs put straight onto the queue', () => {
  it('each fails with a typed error; the worker keeps processing others and never crashes', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (e: unknown) => unhandled.push(e);
    process.on('unhandledRejection', onUnhandled);
    try {
      const w = await world('hostile-jobs');
      await w.addWorker();
      const queue = w.server.runner.queue;
      const bad: Array<[string, unknown]> = [
        ['null', null],
        ['string', 'x'],
        ['array', [1, 2]],
        ['no session', { replyId: 'r', seq: 1, input: 'hi' }],
        ['session string', { session: 'x', replyId: 'r', seq: 1, input: 'hi' }],
        ['dotdot', { session: s('..'), replyId: 'r', seq: 1, input: 'hi' }],
        ['slash', { session: s('../../etc/passwd'), replyId: 'r', seq: 1, input: 'hi' }],
        ['nul', { session: s('a\u0000b'), replyId: 'r', seq: 1, input: 'hi' }],
        ['proto agent', { session: s('p1', 'alice', '__proto__'), replyId: 'r', seq: 1, input: 'hi' }],
        [
          'constructor agent',
          { session: s('p2', 'alice', 'constructor'), replyId: 'r', seq: 1, input: 'hi' },
        ],
        ['toString agent', { session: s('p3', 'alice', 'toString'), replyId: 'r', seq: 1, input: 'hi' }],
        ['proto user', { session: s('p4', '__proto__'), replyId: 'r', seq: 1, input: 'hi' }],
        ['seq string', { session: s('q1'), replyId: 'r', seq: '1', input: 'hi' }],
        ['seq negative', { session: s('q2'), replyId: 'r', seq: -1, input: 'hi' }],
        ['replyId number', { session: s('q3'), replyId: 5, seq: 1, input: 'hi' }],
        ['input number', { session: s('i1'), replyId: 'r-i1', seq: 1, input: 42 }],
        ['input object', { session: s('i2'), replyId: 'r-i2', seq: 1, input: { foo: 1 } }],
        [
          'input bad event',
          { session: s('i3'), replyId: 'r-i3', seq: 1, input: { type: 'USER_CONFIRM_RESULT' } },
        ],
        [
          'input bad event2',
          {
            session: s('i4'),
            replyId: 'r-i4',
            seq: 1,
            input: { type: 'EXTERNAL_EXECUTION_RESULT', executionResults: 'x' },
          },
        ],
        ['input bad msgs', { session: s('i5'), replyId: 'r-i5', seq: 1, input: [null, 1] }],
        ['input huge', { session: s('i6'), replyId: 'r-i6', seq: 1, input: 'x'.repeat(5_000_000) }],
        [
          'replyOptions string',
          { session: s('o1'), replyId: 'r-o1', seq: 1, input: 'hi', replyOptions: 'x' },
        ],
        [
          'replyOptions bad',
          {
            session: s('o2'),
            replyId: 'r-o2',
            seq: 1,
            input: 'hi',
            replyOptions: { structuredSchema: 5, maxIterations: 'x' },
          },
        ],
        ['replyId nul', { session: s('r1'), replyId: 'a\u0000b', seq: 1, input: 'hi' }],
        ['replyId huge', { session: s('r2'), replyId: 'x'.repeat(100_000), seq: 1, input: 'hi' }],
        ['replyId proto', { session: s('r3'), replyId: '__proto__', seq: 1, input: 'hi' }],
      ];
      // Prototype pollution through JSON (as BullMQ parses job data): own `__proto__` keys.
      bad.push([
        'proto options',
        JSON.parse(
          '{"session":{"userId":"alice","agentId":"ops","sessionId":"pp1"},"replyId":"r-pp1","seq":1,"input":"hi","replyOptions":{"__proto__":{"polluted":true}}}',
        ),
      ]);
      bad.push([
        'proto input',
        JSON.parse(
          '{"session":{"userId":"alice","agentId":"ops","sessionId":"pp2","__proto__":{"polluted":true}},"replyId":"r-pp2","seq":1,"input":[{"role":"user","content":[{"type":"text","text":"hi"}],"__proto__":{"polluted":true}}]}',
        ),
      ]);
      const jobs = [];
      const lines = new SessionLines(w.shared.book, keysOf(w.config).lines, 'agentkit-replies');
      for (const [name, data] of bad) {
        const jobId = `${Date.now()}-${name.replace(/ /g, '_')}`;
        const session = (data as { session?: SessionKey } | null)?.session;
        if (session && typeof session === 'object') await lines.reserve(session, jobId, 'queue');
        jobs.push([name, await queue.add('reply', data as never, { jobId, attempts: 1 })] as const);
      }
      const results: Record<string, string> = {};
      for (const [name, job] of jobs) {
        try {
          const r = await Promise.race([
            job.waitUntilFinished(w.server.runner.events),
            new Promise((_, rej) => setTimeout(() => rej(new Error('TIMEOUT')), 15000)),
          ]);
          results[name] = `completed ${JSON.stringify(r)}`;
        } catch (e) {
          results[name] = `failed ${(e as Error).message.slice(0, 200)}`;
        }
      }
      // Every job ended (none left hanging), each bad one with a typed error or as an ordinary reply.
      for (const [name, result] of Object.entries(results)) {
        expect(result, name).not.toMatch(/TIMEOUT/);
        if (result.startsWith('failed')) expect(result, name).toMatch(/Not a reply job|[A-Z_]+: /);
      }
      expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
      const { body } = await post(w.user, 'after', { input: 'Deploy.' });
      expect(await runEnd(w, 'after', body.runId!)).toMatchObject({ status: 'ended' });
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  }, 120_000);

  it('a well-formed job with no place in its session line (not enqueued by a QueueRunner) fails and runs nothing', async () => {
    const w = await world('lineless-jobs');
    await w.addWorker();
    const queue = w.server.runner.queue;
    const sessions = [s('..'), s('../../etc/passwd'), s('a\u0000b'), s('p', '__proto__'), s('plain')];
    const jobs = await Promise.all(
      sessions.map((session, i) =>
        queue.add('reply', { session, replyId: `r${i}`, seq: 1, input: 'Deploy.' } as never, {
          jobId: `${Date.now()}-lineless-${i}`,
          attempts: 1,
        }),
      ),
    );
    for (const [i, job] of jobs.entries()) {
      await expect(job.waitUntilFinished(w.server.runner.events), String(i)).rejects.toThrow(
        /Not in its session's line/,
      );
      expect(await w.shared.eventLog.read(sessions[i]!, null, 10)).toEqual([]);
      expect(await w.shared.store.getSession(sessions[i]!.userId, 'ops', sessions[i]!.sessionId)).toBeNull();
    }
    const { body } = await post(w.user, 'after', { input: 'Deploy.' });
    expect(await runEnd(w, 'after', body.runId!)).toMatchObject({ status: 'ended' });
  }, 60_000);
});
