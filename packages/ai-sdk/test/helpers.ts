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
import {
  AbstractChat,
  asSchema,
  type ChatInit,
  type ChatState,
  type ChatStatus,
  DefaultChatTransport,
  parseJsonEventStream,
  type UIMessage,
  type UIMessageChunk,
  uiMessageChunkSchema,
} from 'ai';
import { aiSdkChat } from '../src/server/index';

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
  options: { script?: ScriptedResponse[]; delayMs?: number; confirm?: boolean } = {},
) {
  const model = new ScriptedModel(options.script ?? deployScript());
  return ({ state }: { state: AgentState }) =>
    new Agent({ name: 'ops', model, tools: [deployTool(runs, options)], state, logger: quiet });
}

/** Starts a server with the AI SDK chat route on a free loopback port. */
export async function startServer(
  options: Partial<AgentServerOptions> = {},
): Promise<ServedAgentServer & { store: SessionStore; runs: string[]; api: string }> {
  const runs: string[] = [];
  const store = options.store ?? new InMemorySessionStore();
  const app = createAgentServer({
    agents: { ops: opsAgent(runs) },
    authenticate: (c) => c.req.header('Authorization')?.replace(/^Bearer /, '') || null,
    logger: { warn() {}, error() {} },
    extensions: [aiSdkChat()],
    ...options,
    store,
  } as AgentServerOptions);
  const served = await serveAgentServer(app, { port: 0, handleSignals: false });
  return { ...served, store, runs, api: `${served.url}/agents/ops/chat` };
}

/** Every chunk of every UI message stream response `fetch` got, validated with the AI SDK's own schema. */
export function recordingFetch(): {
  fetch: typeof fetch;
  chunks: UIMessageChunk[];
  invalid: unknown[];
  /** Resolves once every recorded response was read to its end. */
  settled: () => Promise<unknown>;
} {
  const chunks: UIMessageChunk[] = [];
  const invalid: unknown[] = [];
  const schema = asSchema(uiMessageChunkSchema);
  const reading: Promise<void>[] = [];
  const recorder = async (input: RequestInfo | URL, init?: RequestInit) => {
    const response = await fetch(input, init);
    if (!response.ok || !response.body) return response;
    const [mine, theirs] = response.body.tee();
    reading.push(
      (async () => {
        const reader = parseJsonEventStream({ stream: mine, schema: uiMessageChunkSchema }).getReader();
        for (;;) {
          const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
          if (done || !value) return;
          if (!value.success) invalid.push(value.rawValue);
          else {
            const again = await schema.validate!(value.value);
            if (again.success) chunks.push(value.value);
            else invalid.push(value.value);
          }
        }
      })(),
    );
    return new Response(theirs, { status: response.status, headers: response.headers });
  };
  return { fetch: recorder as typeof fetch, chunks, invalid, settled: () => Promise.all(reading) };
}

class TestChatState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined = undefined;
  constructor(public messages: UIMessage[] = []) {}
  pushMessage = (message: UIMessage) => {
    this.messages = [...this.messages, message];
  };
  popMessage = () => {
    this.messages = this.messages.slice(0, -1);
  };
  replaceMessage = (index: number, message: UIMessage) => {
    this.messages = [...this.messages.slice(0, index), message, ...this.messages.slice(index + 1)];
  };
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/** The AI SDK's chat client without a UI framework: `AbstractChat` over plain state. */
export class TestChat extends AbstractChat<UIMessage> {
  constructor(init: ChatInit<UIMessage>) {
    super({ ...init, state: new TestChatState(init.messages) });
  }
}

/** A chat of user `user` on the server's chat route, recording the chunks it receives. */
export function chatAs(
  user: string,
  api: string,
  init: Omit<ChatInit<UIMessage>, 'transport'> = {},
): {
  chat: TestChat;
  transport: DefaultChatTransport<UIMessage>;
  recorded: ReturnType<typeof recordingFetch>;
} {
  const recorded = recordingFetch();
  const transport = new DefaultChatTransport<UIMessage>({
    api,
    headers: { Authorization: `Bearer ${user}` },
    fetch: recorded.fetch,
  });
  return { chat: new TestChat({ ...init, transport }), transport, recorded };
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
