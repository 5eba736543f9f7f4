import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createToolsServer, type ServerLog } from './tools-server';

/** A running HTTP tools server. */
export interface HttpToolsServer {
  url: string;
  port: number;
  /** Shared by every MCP session of this server. */
  log: ServerLog;
  /** The `Authorization` header of every request, in order. */
  authorizations: Array<string | undefined>;
  /** The MCP servers of the open sessions. */
  sessions: Map<string, McpServer>;
  /** Stops listening and drops every connection, like a crashed or restarted server. */
  close(): Promise<void>;
}

/**
 * The tools server over Streamable HTTP on loopback: a stateful server with one `McpServer` per MCP session,
 * as the SDK's examples build it, answering 404 to sessions it does not know (e.g. after a restart). With
 * `token`, requests without `Authorization: Bearer <token>` get 401.
 */
export async function startHttpToolsServer(
  options: { port?: number; token?: string; pageSize?: number; log?: ServerLog } = {},
): Promise<HttpToolsServer> {
  const log = options.log ?? [];
  const authorizations: Array<string | undefined> = [];
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const sessions = new Map<string, McpServer>();
  const http: Server = createServer(async (req, res) => {
    authorizations.push(req.headers.authorization);
    if (options.token && req.headers.authorization !== `Bearer ${options.token}`) {
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
      return;
    }
    const sessionId = req.headers['mcp-session-id'] as string | undefined;
    if (sessionId) {
      const transport = transports.get(sessionId);
      if (!transport) {
        res
          .writeHead(404, { 'content-type': 'application/json' })
          .end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}');
        return;
      }
      await transport.handleRequest(req, res);
      return;
    }
    const { server } = createToolsServer({
      log,
      ...(options.pageSize ? { pageSize: options.pageSize } : {}),
    });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        transports.set(id, transport);
        sessions.set(id, server);
      },
      onsessionclosed: (id) => {
        transports.delete(id);
        sessions.delete(id);
      },
    });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(options.port ?? 0, '127.0.0.1', resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    log,
    authorizations,
    sessions,
    async close() {
      await Promise.all([...sessions.values()].map((server) => server.close().catch(() => {})));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
