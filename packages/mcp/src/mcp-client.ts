import { StringDecoder } from 'node:string_decoder';
import type { Tool } from '@agentkit/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  StreamableHTTPClientTransport,
  StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  type CallToolResult,
  ErrorCode,
  McpError,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { version as packageVersion } from '../package.json';
import { buildAgentkitTools } from './build-agentkit-tools';
import { McpConnectionError } from './mcp-connection-error';
import { McpRequestError } from './mcp-request-error';
import { raceAbort } from './race-abort';
import { StdioProcessTransport } from './stdio-process-transport';
import {
  checkServerConfig,
  type McpHttpServerConfig,
  type McpServerConfig,
  type McpStdioServerConfig,
  type McpToolDefinition,
} from './server-config';

/** Options of {@link McpClient.callTool}. */
export interface McpCallOptions {
  /** Aborting sends MCP cancellation (`notifications/cancelled`) and rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Overrides the server's `timeoutMs` for this call. */
  timeoutMs?: number;
  /**
   * Whether the call may be sent again when its connection broke before the answer. Default: what the
   * tool's annotations say (`readOnlyHint` or `idempotentHint`).
   */
  idempotent?: boolean;
}

/** Options of {@link McpClient.listTools}. */
export interface McpListOptions {
  /** Stops waiting (the listing itself goes on and is cached). */
  signal?: AbortSignal;
}

interface Connection {
  client: Client;
  transport: Transport;
  closed: boolean;
}

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;
const MAX_PAGES = 1_000;
const STDERR_TAIL = 2_000;

const noop = () => {};

/** The failure's own words: a network error's cause (ECONNREFUSED…) says more than "fetch failed". */
function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error instanceof StreamableHTTPError && error.code !== undefined && error.code > 0)
    return `HTTP ${error.code}: ${error.message}`;
  const cause = (error as { cause?: unknown }).cause;
  if (error instanceof TypeError && cause instanceof Error) return `${error.message} (${cause.message})`;
  return error.message;
}

/** True when the request provably never reached a server, so sending it again cannot run anything twice. */
function neverSent(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.message === 'Not connected') return true;
  // An HTTP server that restarted has forgotten the session: it rejects the request without running it.
  if (error instanceof StreamableHTTPError) return error.code === 404;
  const code = (error as { cause?: { code?: unknown } }).cause?.code;
  return error instanceof TypeError && code === 'ECONNREFUSED';
}

/** True when the connection that carried the request is no longer usable. */
function connectionLost(error: unknown): boolean {
  if (error instanceof McpError) return error.code === ErrorCode.ConnectionClosed;
  return error instanceof StreamableHTTPError || error instanceof TypeError;
}

/**
 * A connection to one MCP server, over stdio (a spawned command) or Streamable HTTP (a URL). It connects
 * on first use, lists the server's tools page by page (cached until the server sends
 * `notifications/tools/list_changed` or the connection is replaced), calls tools with cancellation and
 * timeouts, and reconnects on the next request after the connection was lost (the process died, the HTTP
 * server restarted). A request that provably never reached the server is sent again once on the new
 * connection; one that may have run is not.
 *
 * Most applications use {@link mcpTools}, which makes these for them; use the client directly to share a
 * connection between plugins, to call tools yourself, or to list what a server offers.
 * @example
 * await using files = new McpClient('files', { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] });
 * const result = await files.callTool('list_directory', { path: '.' });
 */
export class McpClient implements AsyncDisposable {
  /** The server's name, used in errors and tool metadata. */
  readonly name: string;
  /** The server's configuration. */
  readonly config: McpServerConfig;
  private current: Promise<Connection> | undefined;
  private live: Connection | undefined;
  private connections = 0;
  private toolsVersion = 0;
  private listed: { version: number; tools: McpToolDefinition[] } | undefined;
  private listing: { version: number; promise: Promise<readonly McpToolDefinition[]> } | undefined;
  private readonly listeners = new Set<() => void>();
  private isClosed = false;
  private stderrTail = '';

  /** Checks the configuration (throws `ConfigError`); connects lazily, on first use or {@link connect}. */
  constructor(name: string, config: McpServerConfig) {
    checkServerConfig(name, config);
    this.name = name;
    this.config = config;
  }

  /** True while a connection is open. */
  get connected(): boolean {
    return this.live !== undefined && !this.live.closed;
  }

  /** The tools of the last successful listing, or `undefined` before the first. */
  get lastListedTools(): readonly McpToolDefinition[] | undefined {
    return this.listed?.tools;
  }

  /**
   * Connects now (a no-op while connected). Throws {@link McpConnectionError} naming the server when it
   * cannot be started or reached, or does not finish the handshake within `connectTimeoutMs`.
   */
  async connect(options: { signal?: AbortSignal } = {}): Promise<void> {
    await this.connection(options.signal);
  }

  /**
   * Every tool the server offers, all pages followed (`nextCursor`), unfiltered. Cached until the server
   * reports a change or the connection is replaced. Throws {@link McpConnectionError} or
   * {@link McpRequestError}.
   */
  async listTools(options: McpListOptions = {}): Promise<readonly McpToolDefinition[]> {
    if (this.listed && this.listed.version === this.toolsVersion) return this.listed.tools;
    if (!this.listing || this.listing.version !== this.toolsVersion) {
      const entry = {
        version: this.toolsVersion,
        promise: undefined as unknown as Promise<readonly McpToolDefinition[]>,
      };
      entry.promise = this.request(
        'tools/list',
        'listing tools',
        undefined,
        this.timeoutMs,
        true,
        (client) => {
          // The version the listing answers to is the one current when it was sent on a live connection.
          entry.version = this.toolsVersion;
          return this.fetchAllTools(client);
        },
      ).then((tools) => {
        if (!this.listed || this.listed.version <= entry.version)
          this.listed = { version: entry.version, tools };
        return tools;
      });
      entry.promise
        .finally(() => {
          if (this.listing === entry) this.listing = undefined;
        })
        .catch(noop);
      this.listing = entry;
    }
    return raceAbort(this.listing.promise, options.signal);
  }

  /**
   * This server's tools as agentkit tools (filtered, prefixed, with names providers accept), for mounting
   * on an agent directly. To mount several servers, use {@link mcpTools}, which also keeps names unique
   * across them.
   */
  async tools(options: McpListOptions = {}): Promise<Tool[]> {
    return buildAgentkitTools([this], options);
  }

  /**
   * Calls a tool and returns the MCP result as it is (`isError: true` included). Throws
   * {@link McpConnectionError} when the server cannot be reached and {@link McpRequestError} for protocol
   * errors and timeouts; rejects with the signal's reason when aborted (after sending MCP cancellation).
   *
   * A call that provably never reached the server (a dead process, a session the restarted server does not
   * know, a refused connection) is sent again once on a new connection. A call whose connection broke
   * before the answer is sent again only when the tool is idempotent, as its annotations say
   * (`readOnlyHint` or `idempotentHint`) or `options.idempotent` does; otherwise it fails, and the next
   * call reconnects.
   */
  async callTool(
    name: string,
    args: Record<string, unknown> = {},
    options: McpCallOptions = {},
  ): Promise<CallToolResult> {
    const timeout = options.timeoutMs ?? this.timeoutMs;
    const { signal } = options;
    const idempotent = options.idempotent ?? this.isIdempotent(name);
    return this.request('tools/call', `calling tool '${name}'`, signal, timeout, idempotent, (client) =>
      client.callTool({ name, arguments: args }, undefined, {
        ...(signal ? { signal } : {}),
        timeout,
        // Asking for progress lets a long tool keep its call alive by reporting it.
        onprogress: noop,
        resetTimeoutOnProgress: true,
      }),
    ) as Promise<CallToolResult>;
  }

  /**
   * Calls `listener` when the server's tool list may have changed (a `list_changed` notification, or a new
   * connection). Returns a function that removes it.
   */
  onToolsChanged(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Closes the connection (a stdio server's process is ended, an HTTP session is terminated). The client
   * cannot be used afterwards.
   */
  async close(): Promise<void> {
    this.isClosed = true;
    const pending = this.current;
    this.current = undefined;
    this.live = undefined;
    const connection = await pending?.catch(() => undefined);
    if (!connection) return;
    connection.closed = true;
    const { transport } = connection;
    if (transport instanceof StreamableHTTPClientTransport && transport.sessionId) {
      // Best effort: tell the server it may forget the session, without waiting on a server that is gone.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        transport.terminateSession().catch(noop),
        new Promise((resolve) => {
          timer = setTimeout(resolve, 2_000);
        }),
      ]);
      clearTimeout(timer);
    }
    await this.shutDown(connection);
  }

  /** `await using client = new McpClient(…)` closes it at the end of the scope. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }

  private isIdempotent(tool: string): boolean {
    const hints = this.listed?.tools.find((definition) => definition.name === tool)?.annotations;
    return hints?.readOnlyHint === true || hints?.idempotentHint === true;
  }

  private get timeoutMs(): number {
    return this.config.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  private connection(signal: AbortSignal | undefined): Promise<Connection> {
    if (this.isClosed)
      return Promise.reject(
        new McpConnectionError(this.name, `The MCP client of server '${this.name}' is closed.`),
      );
    if (!this.current) {
      const opening = this.open();
      this.current = opening;
      opening.catch(() => {
        if (this.current === opening) this.current = undefined;
      });
    }
    return raceAbort(this.current, signal);
  }

  private async open(): Promise<Connection> {
    this.stderrTail = '';
    const client = new Client(this.config.clientInfo ?? { name: 'agentkit', version: packageVersion });
    const transport = this.createTransport();
    const connection: Connection = { client, transport, closed: false };
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      if (!connection.closed) this.toolsChanged();
    });
    client.onclose = () => this.forget(connection);
    // Transport errors also fail the request that met them, which reports them; nothing else to do here.
    client.onerror = noop;
    try {
      await client.connect(transport, {
        timeout: this.config.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      });
    } catch (error) {
      connection.closed = true;
      await this.shutDown(connection);
      throw this.connectionError(error);
    }
    if (connection.closed || this.isClosed) {
      await this.shutDown(connection);
      throw this.connectionError(new Error('the connection closed right after the handshake'));
    }
    this.live = connection;
    // A new connection may be to a restarted server with other tools.
    if (this.connections++ > 0) this.toolsChanged();
    return connection;
  }

  private createTransport(): Transport {
    if ('command' in this.config && this.config.command !== undefined) {
      const config = this.config as McpStdioServerConfig;
      const transport = new StdioProcessTransport({
        command: config.command,
        args: [...(config.args ?? [])],
        ...(config.env ? { env: { ...config.env } } : {}),
        ...(config.cwd !== undefined ? { cwd: config.cwd } : {}),
        stderr: 'pipe',
      });
      const forward = config.stderr ?? 'inherit';
      const decoder = new StringDecoder('utf8');
      transport.stderr?.on('data', (chunk: Buffer) => {
        const text = decoder.write(chunk);
        this.stderrTail = (this.stderrTail + text).slice(-STDERR_TAIL);
        if (forward === 'inherit') process.stderr.write(text);
        else if (typeof forward === 'function')
          try {
            forward(text);
          } catch {
            // The application's log sink failing must not take the connection (or the process) down.
          }
      });
      return transport;
    }
    const config = this.config as McpHttpServerConfig;
    const { headers } = config;
    if (typeof headers === 'function')
      return new StreamableHTTPClientTransport(new URL(config.url), {
        fetch: async (url, init) => {
          const merged = new Headers(init?.headers);
          for (const [key, value] of Object.entries(await headers())) merged.set(key, value);
          return fetch(url, { ...init, headers: merged });
        },
      });
    return new StreamableHTTPClientTransport(
      new URL(config.url),
      headers ? { requestInit: { headers: { ...headers } } } : {},
    );
  }

  private forget(connection: Connection): void {
    connection.closed = true;
    if (this.live !== connection) return;
    this.live = undefined;
    this.current = undefined;
  }

  /** Gives up a connection that failed; the next request opens a new one. */
  private drop(connection: Connection): void {
    this.forget(connection);
    this.shutDown(connection).catch(noop);
  }

  /** Closes the client, and waits until a stdio server's process has ended. */
  private async shutDown({ client, transport }: Connection): Promise<void> {
    await client.close().catch(noop);
    if (transport instanceof StdioProcessTransport) await transport.close().catch(noop);
  }

  private toolsChanged(): void {
    this.toolsVersion++;
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // A listener's failure is its own business; the others still hear about the change.
      }
    }
  }

  private async request<T>(
    method: string,
    what: string,
    signal: AbortSignal | undefined,
    timeoutMs: number,
    idempotent: boolean,
    run: (client: Client) => Promise<T>,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      const connection = await this.connection(signal);
      try {
        return await run(connection.client);
      } catch (error) {
        if (signal?.aborted) throw signal.reason;
        const unsent = neverSent(error);
        const lost = unsent || connectionLost(error);
        if (lost) this.drop(connection);
        if (attempt === 0 && !this.isClosed && (unsent || (lost && idempotent))) continue;
        throw this.requestError(method, what, error, timeoutMs);
      }
    }
  }

  private async fetchAllTools(client: Client): Promise<McpToolDefinition[]> {
    const tools: McpToolDefinition[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let page = 0; page < MAX_PAGES; page++) {
      const result = await client.listTools(cursor === undefined ? undefined : { cursor }, {
        timeout: this.timeoutMs,
      });
      tools.push(...result.tools);
      cursor = result.nextCursor;
      if (cursor === undefined) return tools;
      if (seen.has(cursor))
        throw new McpRequestError(
          this.name,
          'tools/list',
          `MCP server '${this.name}' repeated the cursor '${cursor}' while listing tools.`,
        );
      seen.add(cursor);
    }
    throw new McpRequestError(
      this.name,
      'tools/list',
      `MCP server '${this.name}' listed more than ${MAX_PAGES} pages of tools.`,
    );
  }

  private connectionError(error: unknown): McpConnectionError {
    if (error instanceof McpConnectionError) return error;
    let reason = describe(error);
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
      reason = `no answer to 'initialize' within ${this.config.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS} ms`;
    if ('command' in this.config && this.config.command !== undefined) {
      const { command, args = [] } = this.config as McpStdioServerConfig;
      if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed)
        reason = 'the process exited during the handshake';
      const stderr = this.stderrTail.trim();
      return new McpConnectionError(
        this.name,
        `MCP server '${this.name}' (${[command, ...args].join(' ')}) failed to start: ${reason}` +
          (stderr ? `\nIts stderr ended with:\n${stderr}` : ''),
        { cause: error },
      );
    }
    const { url } = this.config as McpHttpServerConfig;
    return new McpConnectionError(
      this.name,
      `MCP server '${this.name}' at ${String(url)} could not be reached: ${reason}`,
      {
        cause: error,
      },
    );
  }

  private requestError(method: string, what: string, error: unknown, timeoutMs: number): Error {
    if (error instanceof McpConnectionError || error instanceof McpRequestError) return error;
    if (error instanceof McpError && error.code === ErrorCode.RequestTimeout)
      return new McpRequestError(
        this.name,
        method,
        `MCP server '${this.name}' did not finish ${what} within ${timeoutMs} ms; the request was cancelled.`,
        { rpcCode: error.code, timedOut: true, cause: error },
      );
    const rpcCode = error instanceof McpError ? error.code : undefined;
    const lost = connectionLost(error) ? ' (the connection was lost; the next request reconnects)' : '';
    return new McpRequestError(
      this.name,
      method,
      `MCP server '${this.name}' failed ${what}: ${describe(error)}${lost}`,
      {
        ...(rpcCode !== undefined ? { rpcCode } : {}),
        cause: error,
      },
    );
  }
}
