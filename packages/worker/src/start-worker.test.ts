import { StoreConnectionError, type SessionStore } from '@agentkit/core';
import { Job } from 'bullmq';
import { describe, expect, it } from 'vitest';
import { post, runEnd, world } from '../test/fixture';
import { worldWorker } from '../test/setup';
import { keysOf } from '../test/world';
import { SessionLines } from './session-lines';

describe('startWorker', () => {
  it('checks its options', async () => {
    const w = await world('options');
    expect(() => worldWorker(w.config, w.shared, { agents: {} })).toThrow(/at least one agent/);
    expect(() => worldWorker(w.config, w.shared, { concurrency: 0 })).toThrow(/concurrency/);
    expect(() => worldWorker(w.config, w.shared, { leaseTtlMs: Number.NaN })).toThrow(/leaseTtlMs/);
    // A lease no store grants would fail every job at run time instead.
    expect(() => worldWorker(w.config, w.shared, { leaseTtlMs: 50 })).toThrow(
      /leaseTtlMs must be an integer/,
    );
    expect(() => worldWorker(w.config, w.shared, { leaseTtlMs: 1500.5 })).toThrow(/leaseTtlMs/);
    // A malformed URL is a ConfigError that does not echo the URL (it may hold a password).
    for (const url of ['redis://:pa ss@[::1', 'http://127.0.0.1:6379'])
      expect(() => worldWorker(w.config, w.shared, { connection: { url } })).toThrow(
        expect.objectContaining({ code: 'CONFIG', message: expect.not.stringContaining('pa ss') }),
      );
  });

  it('fails a job that is not a reply job without running anything', async () => {
    const w = await world('bad-job');
    await w.addWorker();
    const job = await w.server.runner.queue.add('reply', { nonsense: true } as never, {
      jobId: `${Date.now()}-bad`,
    });
    await expect(job.waitUntilFinished(w.server.runner.events)).rejects.toThrow(/Not a reply job/);
  });

  it('out of attempts before the reply could run (store down): the run ends failed, the line moves on', async () => {
    const w = await world('store-down', { runner: { attempts: 2, backoff: { type: 'fixed', delay: 100 } } });
    const down: SessionStore = new Proxy(w.shared.store, {
      get(target, key, receiver) {
        if (key === 'acquireLease')
          return () => Promise.reject(new StoreConnectionError('Redis is down (test).'));
        const value = Reflect.get(target, key, receiver);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const worker = await w.addWorker({ store: down });
    const { body } = await post(w.user, 's1', { input: 'Deploy.' });
    expect(await runEnd(w, 's1', body.runId!)).toMatchObject({
      status: 'failed',
      error: { code: 'STORE_CONNECTION' },
    });
    const job = await Job.fromId(w.server.runner.queue, body.runId!);
    await expect(job!.waitUntilFinished(w.server.runner.events)).rejects.toThrow(/down/);
    expect((await Job.fromId(w.server.runner.queue, body.runId!))!.attemptsMade).toBe(2);
    const lines = new SessionLines(w.shared.book, keysOf(w.config).lines, 'agentkit-replies');
    expect((await lines.place({ userId: 'alice', agentId: 'ops', sessionId: 's1' }, body.runId!)).place).toBe(
      'gone',
    );
    await worker.close();
    // With the store back, the session takes replies again.
    await w.addWorker();
    const next = await post(w.user, 's1', { input: 'Deploy.' });
    expect(next.status).toBe(202);
    expect(await runEnd(w, 's1', next.body.runId!)).toMatchObject({ status: 'ended' });
  }, 30_000);

  it('counts the user’s unfinished jobs for the server’s per-user limit, and refuses replies once drained', async () => {
    const w = await world('running-for');
    const { body } = await post(w.user, 's1', { input: 'Deploy.' });
    expect(w.server.runner.runningFor('alice')).toBe(1);
    expect(w.server.runner.runningFor('bob')).toBe(0);
    await w.addWorker();
    await runEnd(w, 's1', body.runId!);
    for (let i = 0; w.server.runner.runningFor('alice') > 0 && i < 100; i++)
      await new Promise((r) => setTimeout(r, 20));
    expect(w.server.runner.runningFor('alice')).toBe(0);
    await w.server.runner.drain();
    expect(await post(w.user, 's2', { input: 'Deploy.' })).toMatchObject({
      status: 503,
      body: { code: 'SERVER_DRAINING' },
    });
  });
});
