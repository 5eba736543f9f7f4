import type { SessionStore } from '@agentkit/core';
import { FileSessionStore } from '@agentkit/storage-fs';
import { RedisStorage } from '@agentkit/storage-redis';

/** The session store the demo saves to, a line describing it, and how to release it. */
export interface StoreChoice {
  store: SessionStore;
  description: string;
  close(): Promise<void>;
}

/**
 * Redis (`@agentkit/storage-redis`) when `REDIS_URL` is set, else files (`@agentkit/storage-fs`) in
 * `sessionsDir`.
 */
export function openStore(sessionsDir: string, env: NodeJS.ProcessEnv = process.env): StoreChoice {
  const url = env.REDIS_URL?.trim();
  if (url) {
    const redis = new RedisStorage({ url, keyPrefix: 'agentkit-demo' });
    return { store: redis, description: `Redis at ${redactUrl(url)}`, close: () => redis.close() };
  }
  return {
    store: new FileSessionStore({ directory: sessionsDir }),
    description: `files in ${sessionsDir}`,
    close: async () => {},
  };
}

/** The URL without its password, for printing. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(an unparsable REDIS_URL)';
  }
}
