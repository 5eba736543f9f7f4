import { ConfigError } from '@agentkit/core';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/**
 * A tool as an MCP server describes it in `tools/list` (the SDK's `Tool`): `name`, `title`, `description`,
 * `inputSchema`, `outputSchema`, `annotations` (`readOnlyHint`, `destructiveHint`, `idempotentHint`,
 * `openWorldHint`), `_meta`.
 */
export type McpToolDefinition = Tool;

/**
 * When a tool of the server asks the user before it runs (agentkit's `needsConfirmation`):
 * - `'destructive'` (default): when the server does not promise it is harmless, i.e. unless
 *   `readOnlyHint: true` or `destructiveHint: false`. The MCP spec's defaults are `readOnlyHint: false` and
 *   `destructiveHint: true`, so a tool without annotations asks.
 * - `'always'` / `'never'`: every tool asks / no tool asks (for servers you trust with everything).
 * - a function of the tool's MCP definition.
 */
export type McpConfirmPolicy = 'destructive' | 'always' | 'never' | ((tool: McpToolDefinition) => boolean);

/** How a server's MCP tools become agentkit tools. */
export interface McpToolOptions {
  /**
   * Put before every tool name of this server (e.g. `github_`), so servers with tools of the same name
   * can be mounted together. Default: none.
   */
  prefix?: string;
  /** Only these tools (MCP names, before the prefix). Default: all. */
  include?: readonly string[];
  /** Leave these tools out (MCP names). */
  exclude?: readonly string[];
  /** Keep a tool only when this returns true (applied after `include`/`exclude`). */
  filter?: (tool: McpToolDefinition) => boolean;
  /** Which tools ask the user before running. Default `'destructive'`. */
  confirm?: McpConfirmPolicy;
  /**
   * How long one call may take (ms) before it ends as a tool error and MCP cancellation is sent; progress
   * notifications from the server restart the clock. Default 60 000.
   */
  timeoutMs?: number;
}

/** How the client connects. */
export interface McpConnectionOptions {
  /** How long the handshake (start and `initialize`) may take, in ms. Default 30 000. */
  connectTimeoutMs?: number;
  /** The name and version this client reports to the server. Default `{ name: 'agentkit', version }`. */
  clientInfo?: { name: string; version: string };
}

/** A server spawned as a child process, spoken to over its stdin and stdout. */
export interface McpStdioServerConfig extends McpToolOptions, McpConnectionOptions {
  /** The executable, e.g. `npx` or `process.execPath`. */
  command: string;
  args?: readonly string[];
  /**
   * Environment variables of the process, added to the SDK's safe defaults (`HOME`, `PATH`, `USER`…); the
   * rest of this process's environment is not passed on.
   */
  env?: Readonly<Record<string, string>>;
  /** Working directory of the process. Default: this process's. */
  cwd?: string;
  /**
   * Where the process's stderr goes: this process's stderr (`'inherit'`, default), nowhere
   * (`'ignore'`), or a function. Its last lines are quoted in the error when the server fails to start.
   */
  stderr?: 'inherit' | 'ignore' | ((text: string) => void);
}

/** HTTP headers, or a function that returns them for each request (for tokens that expire). */
export type McpHeaders =
  | Readonly<Record<string, string>>
  | (() => Readonly<Record<string, string>> | Promise<Readonly<Record<string, string>>>);

/** A remote server spoken to over Streamable HTTP. */
export interface McpHttpServerConfig extends McpToolOptions, McpConnectionOptions {
  /** The server's MCP endpoint, e.g. `https://example.com/mcp`. */
  url: string | URL;
  /** Headers sent with every request, e.g. `{ Authorization: 'Bearer …' }`. */
  headers?: McpHeaders;
}

/** A server to connect to: a command (stdio) or a URL (Streamable HTTP). */
export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

const fail = (name: string, field: string, message: string): never => {
  throw new ConfigError(`MCP server '${name}': ${message}`, { field: `servers.${name}.${field}` });
};

const isStringList = (value: unknown): boolean =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

const isStringRecord = (value: unknown): boolean =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  Object.values(value).every((item) => typeof item === 'string');

function checkMs(name: string, field: string, value: unknown): void {
  if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value > 0))
    fail(name, field, `'${field}' must be a positive number of milliseconds.`);
}

/** Throws a `ConfigError` naming the field when a server's configuration cannot work. */
export function checkServerConfig(name: string, config: McpServerConfig): void {
  if (typeof name !== 'string' || name === '')
    throw new ConfigError('Every MCP server needs a non-empty name.', { field: 'servers' });
  if (typeof config !== 'object' || config === null)
    fail(name, '', 'the configuration must be an object with a `command` or a `url`.');
  const hasCommand = 'command' in config && config.command !== undefined;
  const hasUrl = 'url' in config && config.url !== undefined;
  if (hasCommand === hasUrl)
    fail(name, hasCommand ? 'url' : 'command', 'give either `command` (stdio) or `url` (Streamable HTTP).');
  if (hasCommand) {
    const stdio = config as McpStdioServerConfig;
    if (typeof stdio.command !== 'string' || stdio.command === '')
      fail(name, 'command', '`command` must be a non-empty string.');
    if (stdio.args !== undefined && !isStringList(stdio.args))
      fail(name, 'args', '`args` must be a list of strings.');
    if (stdio.env !== undefined && !isStringRecord(stdio.env))
      fail(name, 'env', '`env` must map names to string values.');
    if (stdio.cwd !== undefined && typeof stdio.cwd !== 'string')
      fail(name, 'cwd', '`cwd` must be a string.');
    if (
      stdio.stderr !== undefined &&
      stdio.stderr !== 'inherit' &&
      stdio.stderr !== 'ignore' &&
      typeof stdio.stderr !== 'function'
    )
      fail(name, 'stderr', "`stderr` must be 'inherit', 'ignore' or a function.");
  } else {
    const http = config as McpHttpServerConfig;
    let url: URL | undefined;
    try {
      url = new URL(http.url);
    } catch {
      fail(name, 'url', `\`url\` is not a valid URL: ${String(http.url)}`);
    }
    if (url && url.protocol !== 'http:' && url.protocol !== 'https:')
      fail(name, 'url', `\`url\` must be http: or https:, not ${url.protocol}`);
    if (http.headers !== undefined && typeof http.headers !== 'function' && !isStringRecord(http.headers))
      fail(name, 'headers', '`headers` must map names to string values, or be a function returning that.');
  }
  if (config.prefix !== undefined && typeof config.prefix !== 'string')
    fail(name, 'prefix', '`prefix` must be a string.');
  if (config.include !== undefined && !isStringList(config.include))
    fail(name, 'include', '`include` must be a list of tool names.');
  if (config.exclude !== undefined && !isStringList(config.exclude))
    fail(name, 'exclude', '`exclude` must be a list of tool names.');
  if (config.filter !== undefined && typeof config.filter !== 'function')
    fail(name, 'filter', '`filter` must be a function.');
  const confirm = config.confirm;
  if (
    confirm !== undefined &&
    typeof confirm !== 'function' &&
    confirm !== 'destructive' &&
    confirm !== 'always' &&
    confirm !== 'never'
  )
    fail(name, 'confirm', "`confirm` must be 'destructive', 'always', 'never' or a function.");
  checkMs(name, 'timeoutMs', config.timeoutMs);
  checkMs(name, 'connectTimeoutMs', config.connectTimeoutMs);
  const info = config.clientInfo;
  if (info !== undefined && (typeof info?.name !== 'string' || typeof info?.version !== 'string'))
    fail(name, 'clientInfo', '`clientInfo` must be `{ name: string, version: string }`.');
}
