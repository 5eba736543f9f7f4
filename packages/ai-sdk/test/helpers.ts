import { InMemorySessionStore, type SessionStore } from '@agentkit/core';
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
import { deployAgent, quiet } from '@agentkit/test-fixtures';
import { aiSdkChat } from '../src/server/index';

/** Starts a server with the AI SDK chat route on a free loopback port. */
export async function startServer(
  options: Partial<AgentServerOptions> = {},
): Promise<ServedAgentServer & { store: SessionStore; runs: string[]; api: string }> {
  const runs: string[] = [];
  const store = options.store ?? new InMemorySessionStore();
  const app = createAgentServer({
    agents: { ops: deployAgent(runs) },
    authenticate: (c) => c.req.header('Authorization')?.replace(/^Bearer /, '') || null,
    logger: quiet,
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
