import type { Logger } from '@agentkit/core';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EventLogProcess, startEventLogProcess } from '../../test/event-log-process';
import { REDIS_URL, deleteByPrefix, uniquePrefix } from '@agentkit/test-redis';
import { RedisEventLog } from './redis-event-log';

const silent: Logger = { warn: () => {}, error: () => {} };
const session = { userId: 'user:1', agentId: 'agent{1}', sessionId: 'séance-1' };
const delta = (text: string) =>
  ({ type: 'TEXT_BLOCK_DELTA', replyId: 'r', blockId: 'b', delta: text }) as const;

let admin: Redis;
let child: EventLogProcess;
let log: RedisEventLog;
const keyPrefix = uniquePrefix('event-log-processes');

beforeAll(async () => {
  admin = new Redis(REDIS_URL);
  child = await startEventLogProcess(REDIS_URL, keyPrefix);
  // No safety re-checks during these tests: a follower can only be woken by the other process's message.
  log = new RedisEventLog({ url: REDIS_URL, keyPrefix, logger: silent, recheckIntervalMs: 600_000 });
}, 60_000);

afterAll(async () => {
  await child?.stop();
  await log?.close();
  await deleteByPrefix(admin, keyPrefix);
  await admin.quit();
});

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe('RedisEventLog across two processes', () => {
  it('a follower in this process wakes within 50 ms (median) of an append in the other', async () => {
    const latencies: number[] = [];
    for (let round = 0; round < 8; round++) {
      const after = await log.lastId(session);
      const started = Date.now();
      let wokeAt = 0;
      const waiting = log.waitFor(session, after, 60_000, new AbortController().signal).then(() => {
        wokeAt = Date.now();
      });
      // Give the follower time to subscribe and make its first check (the first round subscribes).
      await new Promise((r) => setTimeout(r, round === 0 ? 500 : 100));
      expect(wokeAt, 'nothing new yet').toBe(0);
      const { at, ids } = (await child.request({ op: 'append', session, events: [delta(`r${round}`)] })) as {
        at: number;
        ids: string[];
      };
      await waiting;
      expect(Date.now() - started).toBeLessThan(30_000);
      latencies.push(wokeAt - at);
      expect((await log.read(session, after, 10)).map((e) => e.id)).toEqual(ids);
    }
    expect(median(latencies), `latencies ${latencies.join(', ')} ms`).toBeLessThan(50);
  }, 60_000);

  it('a follower in the other process wakes on an append in this one', async () => {
    const after = await log.lastId(session);
    const answer = child.request({ op: 'waitFor', session, after, timeoutMs: 60_000 });
    await new Promise((r) => setTimeout(r, 500));
    const appendedAt = Date.now();
    await log.append(session, [delta('from the parent')]);
    const { at } = (await answer) as { at: number };
    expect(at - appendedAt).toBeLessThan(5000);
  }, 30_000);

  it('an interrupt published in one process reaches the listener in the other, and back', async () => {
    const target = { userId: 'u', agentId: 'a', sessionId: 'interrupt-me' };
    const deadline = Date.now() + 10_000;
    while (child.interrupts.length === 0 && Date.now() < deadline) {
      await log.publishInterrupt(target);
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(child.interrupts[0]).toEqual(target);
    const seen: unknown[] = [];
    const off = log.onInterrupt((key) => seen.push(key));
    try {
      const back = { userId: 'x:1', agentId: '{y}', sessionId: 'ζ' };
      while (seen.length === 0 && Date.now() < deadline) {
        await child.request({ op: 'interrupt', session: back });
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(seen[0]).toEqual(back);
    } finally {
      off();
    }
  }, 30_000);
});
