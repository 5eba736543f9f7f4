import { InMemorySessionStore, type SessionStore } from '@agentkit/core';
import { type AgentServerOptions, createAgentServer } from '@agentkit/server';
import { type ServedAgentServer, serveAgentServer } from '@agentkit/server/node';
import { type BaseEvent, HttpAgent } from '@ag-ui/client';
import { EventSchema } from '@ag-ui/core/schemas';
import { deployAgent, quiet } from '@agentkit/test-fixtures';
import { agUiRun } from '../src/server/index';

/** Starts a server with the AG-UI route on a free loopback port. */
export async function startServer(
  options: Partial<AgentServerOptions> = {},
): Promise<ServedAgentServer & { store: SessionStore; runs: string[]; endpoint: string }> {
  const runs: string[] = [];
  const store = options.store ?? new InMemorySessionStore();
  const app = createAgentServer({
    agents: { ops: deployAgent(runs) },
    authenticate: (c) => c.req.header('Authorization')?.replace(/^Bearer /, '') || null,
    logger: quiet,
    extensions: [agUiRun()],
    ...options,
    store,
  } as AgentServerOptions);
  const served = await serveAgentServer(app, { port: 0, handleSignals: false });
  return { ...served, store, runs, endpoint: `${served.url}/agents/ops/ag-ui` };
}

/** An `HttpAgent` of user `user` on a thread, recording every event it receives and whether it validates. */
export function agentAs(user: string, endpoint: string, threadId: string) {
  const agent = new HttpAgent({ url: endpoint, threadId, headers: { Authorization: `Bearer ${user}` } });
  const events: BaseEvent[] = [];
  const invalid: Array<{ event: BaseEvent; issues: unknown }> = [];
  agent.subscribe({
    onEvent: ({ event }) => {
      events.push(event);
      const parsed = EventSchema.safeParse(event);
      if (!parsed.success) invalid.push({ event, issues: parsed.error.issues });
    },
  });
  return { agent, events, invalid };
}
