import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import {
  Agent,
  type AgentState,
  defineTool,
  getText,
  InMemorySessionStore,
  type Plugin,
} from '@agentkit/core';
import { ScriptedModel, textChunks, toolCallChunk } from '@agentkit/core/testing';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, describe, expect, it } from 'vitest';
import { AgentMcpServer, type AgentMcpServerOptions } from '../src/index';
import { packageDir, waitFor } from './helpers';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of cleanup.splice(0).reverse()) await close();
});

const text = (result: CallToolResult) => (result.content[0] as { text: string }).text;
const sessionOf = (result: CallToolResult) => result._meta?.['agentkit/sessionId'] as string;

/** An agent whose model says which turn it is, so tests can see the conversation continue. */
function countingAgent(state: AgentState, model?: ScriptedModel): Agent {
  return new Agent({
    name: 'helper',
    state,
    model:
      model ??
      new ScriptedModel([
        (request) => textChunks(`turn ${request.messages.filter((m) => m.role === 'user').length}`),
      ]),
  });
}

async function serveHttp(options: Partial<AgentMcpServerOptions> = {}) {
  const store = new InMemorySessionStore();
  const agentServer = new AgentMcpServer({
    store,
    agentId: 'helper',
    createAgent: ({ state }) => countingAgent(state),
    ...options,
  });
  const http: Server = createServer((req, res) => {
    agentServer.handleHttp(req, res).catch((error) => {
      res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  cleanup.push(async () => {
    await agentServer.close();
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  });
  return { store: (options.store as InMemorySessionStore | undefined) ?? store, agentServer, url };
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  cleanup.push(() => client.close());
  return client;
}

describe('an agent served over MCP', () => {
  it('offers one tool; messages in one MCP session continue one conversation, saved in the store', async () => {
    const { store, url } = await serveHttp();
    const client = await connect(url);

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['send_message']);
    expect(tools[0]!.inputSchema).toMatchObject({
      type: 'object',
      properties: { message: { type: 'string' }, session_id: { type: 'string' } },
      required: ['message'],
    });

    const first = (await client.callTool({
      name: 'send_message',
      arguments: { message: 'hello' },
    })) as CallToolResult;
    const second = (await client.callTool({
      name: 'send_message',
      arguments: { message: 'again' },
    })) as CallToolResult;
    expect(first.isError).toBeFalsy();
    expect(text(first)).toBe('turn 1');
    expect(text(second)).toBe('turn 2');
    const sessionId = sessionOf(first);
    expect(sessionOf(second)).toBe(sessionId);
    expect(first._meta?.['agentkit/finishedReason']).toBe('completed');

    const record = await store.getSession('mcp', 'helper', sessionId);
    expect(record?.state.context.map((m) => getText(m))).toEqual(['hello', 'turn 1', 'again', 'turn 2']);
    expect(await store.getLease('mcp', 'helper', sessionId)).toBeNull();

    // An explicit session_id is its own conversation, across MCP sessions.
    const other = await connect(url);
    const a = (await other.callTool({
      name: 'send_message',
      arguments: { message: 'hi', session_id: 'shared' },
    })) as CallToolResult;
    const b = (await client.callTool({
      name: 'send_message',
      arguments: { message: 'hi again', session_id: 'shared' },
    })) as CallToolResult;
    expect([text(a), text(b)]).toEqual(['turn 1', 'turn 2']);
    expect(sessionOf(b)).toBe('shared');
  }, 60_000);

  it('returns the structured output as structuredContent', async () => {
    const submit = defineTool({
      name: 'submit',
      description: 'Submit the answer',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      execute: (input: { city: string }, ctx) => {
        ctx.finishReply({ structuredOutput: { city: input.city, confidence: 0.9 } });
        return 'submitted';
      },
    });
    const { url } = await serveHttp({
      createAgent: ({ state }) =>
        new Agent({
          name: 'helper',
          state,
          tools: [submit],
          model: new ScriptedModel([[toolCallChunk('submit', { city: 'Paris' })]]),
        }),
    });
    const client = await connect(url);
    const result = (await client.callTool({
      name: 'send_message',
      arguments: { message: 'Capital of France?' },
    })) as CallToolResult;
    expect(result.isError).toBeFalsy();
    expect(result.structuredContent).toEqual({ city: 'Paris', confidence: 0.9 });
    expect(JSON.parse(text(result))).toEqual({ city: 'Paris', confidence: 0.9 });
  }, 60_000);

  it('an MCP cancellation interrupts the reply, and the interrupted session is saved', async () => {
    const model = () =>
      new ScriptedModel([{ chunks: textChunks('a very slow answer indeed', 1), delayMs: 200 }]);
    const started: string[] = [];
    const { store, url } = await serveHttp({
      createAgent: ({ state, key }) => {
        started.push(key.sessionId);
        return countingAgent(state, model());
      },
    });
    const client = await connect(url);
    const controller = new AbortController();
    const call = client.callTool(
      { name: 'send_message', arguments: { message: 'take your time', session_id: 'slow' } },
      undefined,
      { signal: controller.signal },
    );
    await waitFor(() => started.length === 1);
    controller.abort();
    await expect(call).rejects.toThrow();

    // The run ends (its lease released) once the interrupted reply is saved.
    await waitFor(async () => (await store.getLease('mcp', 'helper', 'slow')) === null);
    const saved = await store.getSession('mcp', 'helper', 'slow');
    expect(saved!.state.context.at(-1)?.finishedReason).toBe('interrupted');
  }, 60_000);

  it('a reply that pauses for confirmation comes back as an error naming the awaited call', async () => {
    const wipe = defineTool({
      name: 'wipe',
      description: 'Wipes everything',
      inputSchema: { type: 'object', properties: {} },
      needsConfirmation: true,
      execute: () => 'wiped',
    });
    const { store, url } = await serveHttp({
      createAgent: ({ state }) =>
        new Agent({
          name: 'helper',
          state,
          tools: [wipe],
          model: new ScriptedModel([[toolCallChunk('wipe', {})]]),
        }),
    });
    const client = await connect(url);
    const result = (await client.callTool({
      name: 'send_message',
      arguments: { message: 'wipe it', session_id: 'risky' },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(text(result)).toContain("'wipe' (asking)");
    const saved = await store.getSession('mcp', 'helper', 'risky');
    expect(saved!.state.context.at(-1)?.finishedReason).toBeNull();

    // The paused session refuses new messages with the core's explanation, and nothing is lost.
    const next = (await client.callTool({
      name: 'send_message',
      arguments: { message: 'hello?', session_id: 'risky' },
    })) as CallToolResult;
    expect(next.isError).toBe(true);
    expect(text(next)).toContain('paused');
    expect((await store.getSession('mcp', 'helper', 'risky'))!.version).toBe(saved!.version);
  }, 60_000);

  it('one reply at a time per session: a second message waits for the first, or is refused when busy', async () => {
    const slow = () => new ScriptedModel([{ chunks: textChunks('done'), delayMs: 1_000 }]);
    const waiting = await serveHttp({ createAgent: ({ state }) => countingAgent(state, slow()) });
    const client = await connect(waiting.url);
    const send = (message: string) =>
      client.callTool({
        name: 'send_message',
        arguments: { message, session_id: 's' },
      }) as Promise<CallToolResult>;
    const [one, two] = await Promise.all([send('one'), send('two')]);
    expect([one.isError, two.isError]).toEqual([undefined, undefined]);
    const record = await waiting.store.getSession('mcp', 'helper', 's');
    expect(record?.state.context).toHaveLength(4);

    const refusing = await serveHttp({
      busyWaitMs: 0,
      createAgent: ({ state }) => countingAgent(state, slow()),
    });
    const client2 = await connect(refusing.url);
    const send2 = (message: string) =>
      client2.callTool({
        name: 'send_message',
        arguments: { message, session_id: 's' },
      }) as Promise<CallToolResult>;
    const outcomes = await Promise.all([send2('one'), send2('two')]);
    const refused = outcomes.filter((r) => r.isError);
    expect(refused).toHaveLength(1);
    expect(text(refused[0]!)).toContain('busy');
  }, 60_000);

  it('userId comes from the caller; a failing createAgent is an error result', async () => {
    const { store, url } = await serveHttp({
      userId: (caller) => `user-of-${caller.mcpSessionId ? 'http' : 'stdio'}`,
    });
    const client = await connect(url);
    await client.callTool({ name: 'send_message', arguments: { message: 'hi', session_id: 'x' } });
    expect(await store.getSession('user-of-http', 'helper', 'x')).not.toBeNull();

    const failing = await serveHttp({
      createAgent: () => {
        throw new Error('no model configured');
      },
    });
    const client2 = await connect(failing.url);
    const result = (await client2.callTool({
      name: 'send_message',
      arguments: { message: 'hi' },
    })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(text(result)).toBe('no model configured');
  }, 60_000);

  it('passes replyOptions to every reply, from the session', async () => {
    const seen: unknown[] = [];
    const tone: Plugin = {
      name: 'tone',
      replyOptions: ['tone'],
      hooks: {
        beforeReply: ({ options }) => {
          seen.push(options.tone);
        },
      },
    };
    const { url } = await serveHttp({
      createAgent: ({ state }) =>
        new Agent({ name: 'helper', state, plugins: [tone], model: new ScriptedModel([textChunks('ok')]) }),
      replyOptions: (session) => ({ tone: `formal for ${session.key.sessionId}` }),
    });
    const client = await connect(url);
    await client.callTool({ name: 'send_message', arguments: { message: 'hi', session_id: 'abc' } });
    expect(seen).toEqual(['formal for abc']);
  }, 60_000);

  it('closes HTTP MCP sessions left idle; their conversations stay in the store', async () => {
    const { store, url } = await serveHttp({ httpSessionIdleMs: 200 });
    const idle = await connect(url);
    const first = (await idle.callTool({
      name: 'send_message',
      arguments: { message: 'hi' },
    })) as CallToolResult;
    await new Promise((resolve) => setTimeout(resolve, 400));
    await connect(url); // any request sweeps idle sessions
    await expect(
      idle.callTool({ name: 'send_message', arguments: { message: 'still there?' } }),
    ).rejects.toThrow(/404|Session not found/);
    expect(await store.getSession('mcp', 'helper', sessionOf(first))).not.toBeNull();
  }, 60_000);

  it('answers 404 to an unknown MCP session and 400 to a non-initialize request without one', async () => {
    const { url } = await serveHttp();
    const post = (headers: Record<string, string>) =>
      fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
    expect((await post({ 'mcp-session-id': 'nope' })).status).toBe(404);
    expect((await post({})).status).toBe(400);
  }, 60_000);

  it('serves over stdio to an SDK client; the connection is the session unless session_id says otherwise', async () => {
    const client = new Client({ name: 'test-client', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: ['--import', 'tsx', join(packageDir, 'test', 'servers', 'agent-stdio-server.ts')],
        cwd: packageDir,
        stderr: 'ignore',
      }),
    );
    cleanup.push(() => client.close());
    const send = async (args: Record<string, string>) =>
      text((await client.callTool({ name: 'send_message', arguments: args })) as CallToolResult);
    const first = await send({ message: 'one' });
    expect(first).toMatch(/^pid \d+: message 1$/);
    expect(await send({ message: 'two' })).toMatch(/: message 2$/);
    expect(await send({ message: 'elsewhere', session_id: 'other' })).toMatch(/: message 1$/);
  }, 60_000);
});
