import type { Logger } from '@agentkit/core';
import { describe, expect, it } from 'vitest';
import { InMemoryEventLog } from './in-memory-event-log';
import { eventLogConformanceCases } from './testing';

const silent: Logger = { warn: () => {}, error: () => {} };
const event = { type: 'TEXT_BLOCK_DELTA', replyId: 'r', blockId: 'b', delta: 'x' } as const;
const key = (sessionId: string) => ({ userId: 'u', agentId: 'a', sessionId });

describe('InMemoryEventLog conformance', () => {
  const factory = async ({ maxEntriesPerSession }: { maxEntriesPerSession?: number }) => ({
    log: new InMemoryEventLog({ logger: silent, ...(maxEntriesPerSession ? { maxEntriesPerSession } : {}) }),
  });
  for (const c of eventLogConformanceCases(factory)) it(c.name, c.run, 30_000);
});

describe('InMemoryEventLog', () => {
  it('keeps at most maxSessions sessions, dropping the least recently written, also after waiting on others', async () => {
    const log = new InMemoryEventLog({ maxSessions: 2 });
    const signal = new AbortController().signal;
    // Waiting on sessions nobody writes must not take room from the sessions that are written.
    await Promise.all(Array.from({ length: 20 }, (_, i) => log.waitFor(key(`idle-${i}`), null, 1, signal)));
    await log.append(key('a'), [event]);
    await log.append(key('b'), [event]);
    await log.append(key('c'), [event]);
    expect(await log.lastId(key('a'))).toBeNull();
    expect(await log.lastId(key('b'))).not.toBeNull();
    expect(await log.lastId(key('c'))).not.toBeNull();
  });

  it('reports a failing interrupt listener to its logger and still calls the others', async () => {
    const errors: unknown[][] = [];
    const log = new InMemoryEventLog({ logger: { warn: () => {}, error: (...args) => errors.push(args) } });
    const seen: string[] = [];
    log.onInterrupt(() => {
      throw new Error('boom');
    });
    log.onInterrupt((session) => seen.push(session.sessionId));
    await log.publishInterrupt(key('s'));
    expect(seen).toEqual(['s']);
    expect(errors).toEqual([[expect.stringMatching(/onInterrupt listener failed/), new Error('boom')]]);
  });
});
