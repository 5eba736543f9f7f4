import type { EventLog } from '@agentkit/server';
import { RedisEventLog } from '@agentkit/server/redis';
import { redactUrl } from '@example/quickstart/src/open-store';

/** The event log the server appends replies' events to, a line describing it, and how to release it. */
export interface EventLogChoice {
  /** `undefined`: the agent server's own in-memory log. */
  eventLog: EventLog | undefined;
  description: string;
  close(): Promise<void>;
}

/**
 * Redis Streams when `REDIS_URL` is set (several playground processes then follow each other's replies),
 * else the agent server's in-memory log (one process).
 */
export function openEventLog(env: NodeJS.ProcessEnv = process.env): EventLogChoice {
  const url = env.REDIS_URL?.trim();
  if (!url) return { eventLog: undefined, description: 'in memory (this process)', close: async () => {} };
  const log = new RedisEventLog({ url, keyPrefix: 'agentkit-playground' });
  return { eventLog: log, description: `Redis streams at ${redactUrl(url)}`, close: () => log.close() };
}
