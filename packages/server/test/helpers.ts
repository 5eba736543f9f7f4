import { Agent, type AgentState, InMemorySessionStore, type SessionStore } from '@agentkit/core';
import { ScriptedModel, type ScriptedResponse, textChunks, toolCallChunk } from '@agentkit/core/testing';
import { deployTool } from '@agentkit/test-fixtures';
import { type AgentServerOptions, createAgentServer } from '../src/index';
import { serveAgentServer, type ServedAgentServer } from '../src/node/index';

/** An agent whose model deploys once, then answers; `script` replaces the model's responses. */
export function opsAgent(
  runs: string[],
  options: { script?: ScriptedResponse[]; delayMs?: number; confirm?: boolean } = {},
) {
  // One model for every run: like a real model, it continues the conversation where the state is.
  const model = new ScriptedModel(
    options.script ?? [[toolCallChunk('deploy', { service: 'billing' })], textChunks('Deployed billing.', 4)],
    { onExhausted: 'repeat' },
  );
  return ({ state }: { state: AgentState }) =>
    new Agent({ name: 'ops', model, tools: [deployTool(runs, options)], state });
}

/**
 * An in-memory store whose lease release takes `ms` (a network round trip, a file system): a run's
 * `RUN_END` is in the log a moment before its lease is released.
 */
export class SlowReleaseStore extends InMemorySessionStore {
  constructor(private readonly ms = 200) {
    super();
  }

  override async releaseLease(...args: Parameters<InMemorySessionStore['releaseLease']>) {
    await new Promise((resolve) => setTimeout(resolve, this.ms));
    return super.releaseLease(...args);
  }
}

/** Starts a server on a free loopback port. */
export async function startServer(
  options: Partial<AgentServerOptions> & { store?: SessionStore } = {},
): Promise<ServedAgentServer & { store: SessionStore; runs: string[] }> {
  const runs: string[] = [];
  const store = options.store ?? new InMemorySessionStore();
  const app = createAgentServer({
    agents: { ops: opsAgent(runs) },
    authenticate: (c) => c.req.header('Authorization')?.replace(/^Bearer /, '') || null,
    logger: { warn() {}, error() {} },
    ...options,
    store,
  } as AgentServerOptions);
  const served = await serveAgentServer(app, { port: 0, handleSignals: false });
  return { ...served, store, runs };
}
