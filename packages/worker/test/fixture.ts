import { afterEach } from 'vitest';
import type { QueueRunnerOptions } from '../src/queue-runner';
import type { ReplyWorker } from '../src/start-worker';
import type { StartWorkerOptions } from '../src/start-worker-options';
import { deleteByPrefix, uniquePrefix } from '@agentkit/test-redis';
import { openShared, worldServer, worldWorker } from './setup';
import { as } from '@agentkit/test-fixtures';
import type { WorldConfig } from './world';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A test's world in this process: a server with a QueueRunner, and workers on demand. */
export async function world(
  label: string,
  options: { config?: Partial<WorldConfig>; runner?: Partial<QueueRunnerOptions> } = {},
) {
  const config: WorldConfig = { prefix: uniquePrefix(label), ...options.config };
  const shared = openShared(config);
  const server = await worldServer(config, shared, options.runner);
  const workers: ReplyWorker[] = [];
  cleanups.push(async () => {
    await server.close();
    await Promise.all(workers.map((w) => w.close()));
    await deleteByPrefix(shared.book, config.prefix);
    await shared.close();
  });
  const addWorker = async (options: Partial<StartWorkerOptions> = {}) => {
    const worker = worldWorker(config, shared, options);
    workers.push(worker);
    await worker.waitUntilReady();
    return worker;
  };
  return { config, shared, server, workers, addWorker, user: as('alice', server.url) };
}

/** Posts a reply in the background (202) and returns the run id. */
export async function post(user: ReturnType<typeof as>, sessionId: string, body: object, agent = 'ops') {
  const res = await user(`/agents/${agent}/sessions/${sessionId}/replies`, {
    method: 'POST',
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as { runId?: string; code?: string } };
}

/** Follows the session's log until the run's RUN_END. */
export async function runEnd(
  w: Awaited<ReturnType<typeof world>>,
  sessionId: string,
  runId: string,
  agent = 'ops',
  userId = 'alice',
) {
  const session = { userId, agentId: agent, sessionId };
  for (let after: string | null = null; ; ) {
    const entries = await w.shared.eventLog.read(session, after, 1000);
    for (const entry of entries) {
      if (entry.event.type === 'RUN_END' && entry.event.runId === runId) return entry.event;
      after = entry.id;
    }
    await w.shared.eventLog.waitFor(session, after, 1000, new AbortController().signal);
  }
}

/**
 * The queue's job counts once nothing waits, runs or is delayed (a job completes just after its RUN_END
 * is logged), or after 10 s.
 */
export async function settled(w: Awaited<ReturnType<typeof world>>) {
  let counts: Record<string, number> = {};
  for (const until = Date.now() + 10_000; Date.now() < until; ) {
    counts = await w.server.runner.queue.getJobCounts('wait', 'delayed', 'active', 'failed');
    if (counts.wait === 0 && counts.delayed === 0 && counts.active === 0) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  return counts;
}
