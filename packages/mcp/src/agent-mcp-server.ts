import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable, Writable } from 'node:stream';
import {
  type Agent,
  type AgentState,
  awaitingToolCalls,
  ConfigError,
  createAgentState,
  getText,
  type ReplyOptions,
  type SessionKey,
  SessionLease,
  runSession,
  type SessionStore,
} from '@agentkit/core';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import * as z from 'zod/v4';
import { version as packageVersion } from '../package.json';

/** Who is calling, as the MCP request tells: what `userId` and `createAgent` may look at. */
export interface McpCaller {
  /** The MCP session (Streamable HTTP), if any. */
  mcpSessionId: string | undefined;
  /** The validated access token, when the HTTP server put one on the request (`req.auth`). */
  authInfo: AuthInfo | undefined;
}

/** The session a message goes to, as {@link AgentMcpServerOptions.createAgent} gets it. */
export interface AgentSession extends McpCaller {
  /** The session's key in the store. */
  key: SessionKey;
  /** The saved state, or a fresh one (whose `sessionId` is the session's) for a new session. */
  state: AgentState;
  /** True when the store had no such session yet. */
  isNew: boolean;
}

/** Options of {@link AgentMcpServer}. */
export interface AgentMcpServerOptions {
  /** Where sessions live (`InMemorySessionStore`, `@agentkit/storage-redis`, `@agentkit/storage-fs`…). */
  store: SessionStore;
  /** The agent id of the sessions in the store. */
  agentId: string;
  /**
   * Builds the agent for one message, from the session's state (`new Agent({ …, state: session.state })`).
   * Called for every message: the agent lives as long as the reply.
   */
  createAgent: (session: AgentSession) => Agent | Promise<Agent>;
  /** The user id of the sessions: fixed, or from the caller (e.g. its token). Default `'mcp'`. */
  userId?: string | ((caller: McpCaller) => string | Promise<string>);
  /** The tool's name. Default `'send_message'`. */
  toolName?: string;
  /** The tool's description, for the calling model. Default: says what the agent is and how sessions work. */
  toolDescription?: string;
  /** The tool's MCP annotations. Default: none (MCP clients then treat it as possibly destructive). */
  annotations?: ToolAnnotations;
  /** The server's name and version in the MCP handshake. Default `{ name: agentId, version }`. */
  serverInfo?: { name: string; version: string };
  /** Options of every reply (e.g. `structuredSchema`), or a function of the session that returns them. */
  replyOptions?:
    | Omit<ReplyOptions, 'signal'>
    | ((session: AgentSession) => Omit<ReplyOptions, 'signal'> | Promise<Omit<ReplyOptions, 'signal'>>);
  /** How long a message waits for the session's previous reply to end. Default 30 000 ms. */
  busyWaitMs?: number;
  /** An HTTP MCP session unused this long is closed (its agent sessions stay in the store). Default 30 min. */
  httpSessionIdleMs?: number;
}

interface HttpSession {
  transport: StreamableHTTPServerTransport;
  server: McpServer;
  lastActive: number;
}

const SESSION_META = 'agentkit/sessionId';
const REASON_META = 'agentkit/finishedReason';

const errorResult = (text: string, meta: Record<string, unknown> = {}): CallToolResult => ({
  content: [{ type: 'text', text }],
  isError: true,
  _meta: meta,
});

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Serves an agentkit agent as an MCP server with one tool (`send_message` by default) that sends a message
 * to a session of the agent and returns its reply: the reply's text, and its structured output as
 * `structuredContent` when it has one. Each call leases the session (one reply at a time, waiting up to
 * `busyWaitMs` for a running one), loads its state from the store, builds the agent with `createAgent`,
 * replies, and saves the state under the lease. MCP cancellation interrupts the reply.
 *
 * The session is the `session_id` argument when the caller gives one, else the MCP session (Streamable
 * HTTP), else one per connection (stdio). Its id is returned in the result's `_meta['agentkit/sessionId']`.
 * A reply that pauses for a tool confirmation or an external result cannot continue over MCP: the call
 * returns an error naming the awaited calls, and the saved session waits for the application to resume it.
 * @example
 * const server = new AgentMcpServer({
 *   store, agentId: 'support',
 *   createAgent: ({ state }) => new Agent({ name: 'support', model, state }),
 * });
 * await server.serveStdio();
 * // or, over Streamable HTTP: http.createServer((req, res) => server.handleHttp(req, res)).listen(3000);
 */
export class AgentMcpServer implements AsyncDisposable {
  private readonly options: AgentMcpServerOptions;
  private readonly httpSessions = new Map<string, HttpSession>();
  private readonly servers = new Set<McpServer>();

  /** Checks the options (throws `ConfigError`). */
  constructor(options: AgentMcpServerOptions) {
    if (typeof options?.store?.acquireLease !== 'function')
      throw new ConfigError("AgentMcpServer: 'store' must be a SessionStore.", { field: 'store' });
    if (typeof options.agentId !== 'string' || options.agentId === '')
      throw new ConfigError("AgentMcpServer: 'agentId' must be a non-empty string.", { field: 'agentId' });
    if (typeof options.createAgent !== 'function')
      throw new ConfigError("AgentMcpServer: 'createAgent' must be a function.", { field: 'createAgent' });
    const toolName = options.toolName ?? 'send_message';
    if (!/^[a-zA-Z0-9_-]{1,64}$/.test(toolName))
      throw new ConfigError(
        `AgentMcpServer: 'toolName' must match ^[a-zA-Z0-9_-]{1,64}$, not '${toolName}'.`,
        {
          field: 'toolName',
        },
      );
    this.options = options;
  }

  /**
   * A new `McpServer` with the agent's tool, for a transport of your choice (one server per connection:
   * an MCP server speaks to one client).
   */
  createMcpServer(): McpServer {
    const { options } = this;
    const server = new McpServer(options.serverInfo ?? { name: options.agentId, version: packageVersion });
    const connectionSession = randomUUID();
    server.registerTool(
      options.toolName ?? 'send_message',
      {
        description:
          options.toolDescription ??
          `Send a message to the agent '${options.agentId}' and get its reply. Messages with the same ` +
            'session_id continue one conversation; without one, the conversation of this MCP session continues.',
        inputSchema: {
          message: z.string().min(1).describe('The message to the agent.'),
          session_id: z
            .string()
            .min(1)
            .max(256)
            .optional()
            .describe('The conversation to continue or start. Default: this MCP session.'),
        },
        ...(options.annotations ? { annotations: options.annotations } : {}),
      },
      async ({ message: text, session_id }, extra) =>
        this.send(text, session_id ?? extra.sessionId ?? connectionSession, extra.signal, {
          mcpSessionId: extra.sessionId,
          authInfo: extra.authInfo,
        }),
    );
    this.servers.add(server);
    const close = server.server.onclose;
    server.server.onclose = () => {
      close?.();
      this.servers.delete(server);
    };
    return server;
  }

  /** Serves one client over stdio (this process's stdin and stdout unless others are given). */
  async serveStdio(streams: { stdin?: Readable; stdout?: Writable } = {}): Promise<void> {
    await this.createMcpServer().connect(new StdioServerTransport(streams.stdin, streams.stdout));
  }

  /**
   * Handles one HTTP request to the MCP endpoint (Streamable HTTP: POST, GET for the notification stream,
   * DELETE to end a session) on a Node `http` server or anything built on it (Express, Fastify's raw
   * request). Pass `parsedBody` when a body parser already read the request. Put authentication in front
   * of it; a validated token on `req.auth` reaches `userId` and `createAgent` as `authInfo`. Never rejects:
   * an unexpected failure is answered with HTTP 500.
   */
  async handleHttp(
    req: IncomingMessage & { auth?: AuthInfo },
    res: ServerResponse,
    parsedBody?: unknown,
  ): Promise<void> {
    try {
      await this.routeHttp(req, res, parsedBody);
    } catch {
      // Never a rejection for the caller's request handler to lose (an unhandled one ends the process).
      if (!res.headersSent) reject(res, 500, -32603, 'Internal server error');
      else res.end();
    }
  }

  private async routeHttp(
    req: IncomingMessage & { auth?: AuthInfo },
    res: ServerResponse,
    parsedBody: unknown,
  ): Promise<void> {
    this.closeIdleHttpSessions();
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId !== undefined) {
      const session = this.httpSessions.get(sessionId);
      if (!session) return reject(res, 404, -32001, 'Session not found');
      session.lastActive = Date.now();
      return session.transport.handleRequest(req, res, parsedBody);
    }
    if (req.method !== 'POST') return reject(res, 400, -32000, 'Bad Request: No valid session ID provided');
    const server = this.createMcpServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.httpSessions.set(id, { transport, server, lastActive: Date.now() });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.httpSessions.delete(transport.sessionId);
    };
    try {
      await server.connect(transport);
      await transport.handleRequest(req, res, parsedBody);
    } finally {
      // Not an initialize request (or it failed): the transport answered with an error and no session exists.
      if (!transport.sessionId) await server.close();
    }
  }

  /** Closes every connection (stdio and HTTP sessions). Sessions in the store are kept. */
  async close(): Promise<void> {
    const servers = [...this.servers];
    this.httpSessions.clear();
    this.servers.clear();
    await Promise.all(servers.map((server) => server.close().catch(() => {})));
  }

  /** `await using server = new AgentMcpServer(…)` closes it at the end of the scope. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private closeIdleHttpSessions(): void {
    const idleMs = this.options.httpSessionIdleMs ?? 30 * 60_000;
    const now = Date.now();
    for (const [id, session] of this.httpSessions)
      if (now - session.lastActive > idleMs) {
        this.httpSessions.delete(id);
        session.server.close().catch(() => {});
      }
  }

  private async send(
    text: string,
    sessionId: string,
    signal: AbortSignal,
    caller: McpCaller,
  ): Promise<CallToolResult> {
    const { options } = this;
    const meta = { [SESSION_META]: sessionId };
    let lease: SessionLease | undefined;
    try {
      const userId =
        typeof options.userId === 'function' ? await options.userId(caller) : (options.userId ?? 'mcp');
      const key: SessionKey = { userId, agentId: options.agentId, sessionId };
      lease = await SessionLease.acquire(options.store, key, {
        waitMs: options.busyWaitMs ?? 30_000,
        owner: `mcp:${caller.mcpSessionId ?? 'stdio'}`,
        signal,
      });
      const run = await runSession({
        store: options.store,
        session: key,
        lease,
        signal,
        input: text,
        agent: (state) =>
          options.createAgent({
            ...caller,
            key,
            state,
            isNew: state.reply === null && state.context.length === 0,
          }),
        ...(options.replyOptions !== undefined
          ? {
              replyOptions:
                typeof options.replyOptions === 'function'
                  ? await options.replyOptions({
                      ...caller,
                      key,
                      state: createAgentState({ sessionId }),
                      isNew: false,
                    })
                  : options.replyOptions,
            }
          : {}),
      });
      const reply = run.message;
      const state = run.record.state;
      const resultMeta = { ...meta, [REASON_META]: reply.finishedReason };
      if (reply.finishedReason === null) {
        const awaited = awaitingToolCalls(state).map((call) => `'${call.name}' (${call.state})`);
        return errorResult(
          `The agent paused: it waits for ${awaited.join(', ')} to be confirmed or executed, which cannot ` +
            'happen over MCP. The session is saved; the application must resume it.',
          resultMeta,
        );
      }
      if (reply.finishedReason === 'error')
        return errorResult(
          `The agent's reply failed: ${reply.error?.message ?? 'unknown error'}`,
          resultMeta,
        );
      const structured = reply.structuredOutput;
      const replyText = getText(reply) ?? '';
      const result: CallToolResult = {
        content: [
          { type: 'text', text: replyText || (structured != null ? JSON.stringify(structured) : '') },
        ],
        _meta: resultMeta,
      };
      if (structured != null)
        result.structuredContent =
          typeof structured === 'object' && !Array.isArray(structured)
            ? (structured as Record<string, unknown>)
            : { value: structured };
      return result;
    } catch (error) {
      return errorResult(message(error), meta);
    } finally {
      await lease?.release();
    }
  }
}

function reject(res: ServerResponse, status: number, code: number, text: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message: text }, id: null }));
}
