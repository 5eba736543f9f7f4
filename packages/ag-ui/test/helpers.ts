import {
  Agent,
  type AgentState,
  defineTool,
  InMemorySessionStore,
  type SessionStore,
  type Tool,
} from '@agentkit/core';
import {
  ScriptedModel,
  type ScriptedResponse,
  textChunks,
  thinkingChunk,
  toolCallChunk,
  usageChunk,
} from '@agentkit/core/testing';
import { type AgentServerOptions, createAgentServer } from '@agentkit/server';
import { type ServedAgentServer, serveAgentServer } from '@agentkit/server/node';
import { type BaseEvent, HttpAgent } from '@ag-ui/client';
import { EventSchema } from '@ag-ui/core/schemas';
import { agUiRun } from '../src/server/index';

/** A logger for agents whose failures a test provokes on purpose. */
export const quiet = { warn() {}, error() {} };

/** A deploy tool that records its runs; optionally slow (abort-aware) or asking for confirmation. */
export function deployTool(runs: string[], options: { delayMs?: number; confirm?: boolean } = {}): Tool {
  return defineTool({
    name: 'deploy',
    description: 'Deploy a service',
    inputSchema: { type: 'object', properties: { service: { type: 'string' } }, required: ['service'] },
    needsConfirmation: options.confirm ?? false,
    execute: async ({ service }: { service: string }, ctx) => {
      if (options.delayMs)
        await new Promise((resolve, reject) => {
          const t = setTimeout(resolve, options.delayMs);
          ctx.signal.addEventListener('abort', () => {
            clearTimeout(t);
            reject(ctx.signal.reason);
          });
        });
      runs.push(service);
      return `deployed ${service}`;
    },
  });
}

/** The model thinks, says what it does, deploys billing, then answers. */
export function deployScript(): ScriptedResponse[] {
  return [
    [
      thinkingChunk('The user wants billing deployed.'),
      ...textChunks('Deploying billing now.'),
      toolCallChunk('deploy', { service: 'billing' }, 'call_deploy'),
      usageChunk({ inputTokens: 20, outputTokens: 7 }),
    ],
    [...textChunks('Billing is deployed.'), usageChunk({ inputTokens: 30, outputTokens: 4 })],
  ];
}

/** An agent factory for the server: one model for every run (it continues where the state is). */
export function opsAgent(
  runs: string[],
  options: { script?: ScriptedResponse[]; delayMs?: number; confirm?: boolean; tools?: Tool[] } = {},
) {
  const model = new ScriptedModel(options.script ?? deployScript());
  return ({ state }: { state: AgentState }) =>
    new Agent({
      name: 'ops',
      model,
      tools: [deployTool(runs, options), ...(options.tools ?? [])],
      state,
      logger: quiet,
    });
}

/** Starts a server with the AG-UI route on a free loopback port. */
export async function startServer(
  options: Partial<AgentServerOptions> = {},
): Promise<ServedAgentServer & { store: SessionStore; runs: string[]; endpoint: string }> {
  const runs: string[] = [];
  const store = options.store ?? new InMemorySessionStore();
  const app = createAgentServer({
    agents: { ops: opsAgent(runs) },
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

/** Waits until `check` holds (polling), or fails after `timeoutMs`. */
export async function waitFor(check: () => boolean, timeoutMs = 5_000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * The state a process leaves when it dies inside a tool: its last checkpoint marks the call started
 * (the reply is unfinished). The dying model says `On it.` and calls `deploy` with id `c1`.
 */
export async function crashedState(): Promise<AgentState> {
  let crash: AgentState | undefined;
  const dying = new Agent({
    name: 'ops',
    model: new ScriptedModel([
      [...textChunks('On it.'), toolCallChunk('deploy', { service: 'billing' }, 'c1')],
      textChunks('x'),
    ]),
    tools: [
      defineTool({
        name: 'deploy',
        description: 'd',
        inputSchema: { type: 'object' },
        execute: (_input: unknown, ctx) => {
          crash ??= JSON.parse(JSON.stringify(ctx.state)) as AgentState;
          return 'ok';
        },
      }),
    ],
  });
  await dying.reply('Deploy.');
  return crash!;
}
