/**
 * The two HTTP servers SRV compares, serving the same agent on the same route
 * (`POST /agents/bench/sessions/:sessionId/replies`, `{ input }`, answered with Server-Sent Events).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, type AgentState, type ChatModel, defineTool, InMemorySessionStore } from '@agentkit/core';
import { createAgentServer } from '@agentkit/server';
import { serveAgentServer } from '@agentkit/server/node';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { streamSSE } from 'hono/streaming';
import { z } from 'zod';
import type { ServerSubject } from './server-job';
import { addDescription } from './workload';

/** A server listening on loopback. */
export interface BenchServer {
  url: string;
  close(): Promise<void>;
}

// Not idempotent (the default): the agentkit server checkpoints before and after every call.
const add = defineTool({
  name: 'add',
  description: addDescription,
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: ({ a, b }) => String(a + b),
});

const silent = { warn() {}, error() {} };

/** The agent both servers run: the bench's calculator on `model`. */
function benchAgent(model: ChatModel, state?: AgentState): Agent {
  return new Agent({
    name: 'bench',
    systemPrompt: 'You are a calculator.',
    model,
    tools: [add],
    logger: silent,
    ...(state ? { state } : {}),
  });
}

/** Starts `subject` on a free loopback port, its agent on `model`. */
export async function startBenchServer(subject: ServerSubject, model: ChatModel): Promise<BenchServer> {
  if (subject === 'agentkit-server') {
    // As a user serves it: development mode, the defaults (in-memory event log, in-process runner), an
    // in-memory store. One user runs every reply, so its limit on concurrent replies is lifted.
    const app = createAgentServer({
      agents: { bench: ({ state }) => benchAgent(model, state) },
      store: new InMemorySessionStore(),
      development: true,
      logger: silent,
      limits: { maxRunningRepliesPerUser: 1_000_000 },
    });
    const served = await serveAgentServer(app, { port: 0, handleSignals: false });
    return { url: served.url, close: served.close };
  }
  // The limit: Hono's own SSE helper streaming `Agent.replyStream`, one message per event, nothing else
  // (no store, no lease, no event log, no validation beyond parsing the body).
  const app = new Hono();
  app.post('/agents/:agentId/sessions/:sessionId/replies', async (c) => {
    const { input } = await c.req.json<{ input: string }>();
    const agent = benchAgent(model);
    return streamSSE(c, async (stream) => {
      let id = 0;
      for await (const event of agent.replyStream(input))
        await stream.writeSSE({ id: String(++id), data: JSON.stringify(event) });
    });
  });
  const server = await new Promise<Server>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s as Server));
    s.once('error', reject);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
