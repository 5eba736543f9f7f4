import {
  Agent,
  type AgentState,
  defineTool,
  InMemorySessionStore,
  type SessionStore,
  type Tool,
} from '@agentkit/core';
import { ScriptedModel, type ScriptedResponse, textChunks, toolCallChunk } from '@agentkit/core/testing';
import { type AgentServerOptions, createAgentServer, type LogEvent } from '../src/index';
import { serveAgentServer, type ServedAgentServer } from '../src/node/index';

/** One parsed Server-Sent Event. */
export interface SseMessage {
  id?: string;
  data: string;
}

/**
 * Reads an SSE response until it ends (or `until` says stop, or `abort` aborts): every message with its id
 * and parsed event. Comments (heartbeats) are counted.
 */
export async function readSse(
  response: Response,
  options: { until?: (event: LogEvent, id?: string) => boolean; signal?: AbortSignal } = {},
): Promise<{ messages: Array<{ id?: string; event: LogEvent }>; comments: number }> {
  const messages: Array<{ id?: string; event: LogEvent }> = [];
  let comments = 0;
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += value;
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf('\n\n');
        const message: SseMessage = { data: '' };
        let isComment = true;
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) continue;
          isComment = false;
          const colon = line.indexOf(':');
          const field = line.slice(0, colon);
          const text = line.slice(colon + 1).replace(/^ /, '');
          if (field === 'id') message.id = text;
          else if (field === 'data') message.data += text;
        }
        if (isComment) comments++;
        else if (message.data) {
          const event = JSON.parse(message.data) as LogEvent;
          messages.push({ ...(message.id ? { id: message.id } : {}), event });
          if (options.until?.(event, message.id)) return { messages, comments };
        }
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
  return { messages, comments };
}

/** A deploy tool that counts its runs and can be slow (abort-aware). */
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

/** `fetch` as a user (`Authorization: Bearer <user>`). */
export function as(user: string, base: string) {
  return (path: string, init: RequestInit = {}) =>
    fetch(`${base}${path}`, {
      ...init,
      headers: {
        Authorization: `Bearer ${user}`,
        'Content-Type': 'application/json',
        ...(init.headers ?? {}),
      },
    });
}
