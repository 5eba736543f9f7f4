import type { EventLog } from '@agentkit/server';

/** The event log the server appends replies' events to, a line describing it, and how to release it. */
export interface EventLogChoice {
  /** `undefined`: the agent server's own in-memory log. */
  eventLog: EventLog | undefined;
  description: string;
  close(): Promise<void>;
}

/**
 * The agent server's in-memory log (one process). With `REDIS_URL` this is where `RedisEventLog` from
 * `@agentkit/server/redis` belongs, so that several playground processes follow each other's replies —
 * `new RedisEventLog(…)` here, closed by `close` — once that package exports it; until then the log stays
 * in memory and the description says so.
 */
export function openEventLog(env: NodeJS.ProcessEnv = process.env): EventLogChoice {
  const description = env.REDIS_URL?.trim()
    ? 'in memory (@agentkit/server/redis has no RedisEventLog yet)'
    : 'in memory (this process)';
  return { eventLog: undefined, description, close: async () => {} };
}
