import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The ids the demo's session is stored under. */
export const SESSION_KEY = { userId: 'demo-user', agentId: 'quickstart', sessionId: 'demo-session' } as const;

/** Where the demo keeps its files: a sandbox the tools work in, and the file session store. */
export interface DemoPaths {
  /** The demo's own folder (`AGENTKIT_DEMO_DIR`, default `examples/quickstart/.agentkit-demo`, gitignored). */
  root: string;
  /** The only folder the agent's file tools can see. */
  sandbox: string;
  /** The directory of the file session store (used when `REDIS_URL` is not set). */
  sessions: string;
}

/** The demo's folders, from `AGENTKIT_DEMO_DIR` or next to this example. */
export function demoPaths(env: NodeJS.ProcessEnv = process.env): DemoPaths {
  const root = env.AGENTKIT_DEMO_DIR
    ? resolve(env.AGENTKIT_DEMO_DIR)
    : fileURLToPath(new URL('../.agentkit-demo', import.meta.url));
  return { root, sandbox: join(root, 'sandbox'), sessions: join(root, 'sessions') };
}
