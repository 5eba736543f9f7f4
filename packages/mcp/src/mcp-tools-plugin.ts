import { ConfigError, type Plugin } from '@agentkit/core';
import { buildAgentkitTools } from './build-agentkit-tools';
import { McpClient } from './mcp-client';
import type { McpServerConfig } from './server-config';

/** Options of {@link mcpTools}. */
export interface McpToolsOptions {
  /**
   * The servers, by name: a configuration (a `command` for stdio, a `url` for Streamable HTTP), or an
   * {@link McpClient} you made (its name must match the key; you close it yourself). Order matters when
   * two servers offer a tool of the same name: the first keeps the name, the second gets a suffix (use
   * `prefix` to choose names yourself).
   */
  servers: Readonly<Record<string, McpServerConfig | McpClient>>;
  /** The plugin's name (in errors, and to install two of them). Default `'mcp'`. */
  name?: string;
}

/** The plugin {@link mcpTools} returns: a `Plugin` that also owns the server connections. */
export interface McpToolsPlugin extends Plugin, AsyncDisposable {
  /** The clients, by server name. */
  readonly clients: ReadonlyMap<string, McpClient>;
  /**
   * Connects to every server now (they otherwise connect on the first reply), to fail at startup
   * rather than in a reply. Throws the {@link McpConnectionError} of the first server (in `servers` order)
   * that fails.
   */
  connect(options?: { signal?: AbortSignal }): Promise<void>;
  /** Closes the connections this plugin opened (not those of clients passed in). */
  close(): Promise<void>;
}

/**
 * Mounts the tools of MCP servers on an agent. Every reply gets the servers' current tools (connecting on
 * the first, re-listing after a `notifications/tools/list_changed`), so a change applies from the next
 * reply on; a paused reply resumed in another process finds its tools under the same names. One plugin can
 * serve many agents (e.g. one per session): the connections are shared.
 *
 * A server that cannot be reached when its tools are first needed ends the reply with `error` (an
 * {@link McpConnectionError} naming it, wrapped in the hook error); once listed, a server that is down
 * keeps its last list and its calls fail as tool errors the model sees, until it is back.
 * @example
 * const mcp = mcpTools({
 *   servers: {
 *     files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '.'] },
 *     search: { url: 'https://search.example.com/mcp', headers: { Authorization: `Bearer ${token}` } },
 *   },
 * });
 * const agent = new Agent({ name: 'assistant', model, plugins: [mcp] });
 */
export function mcpTools(options: McpToolsOptions): McpToolsPlugin {
  const servers = options?.servers;
  if (typeof servers !== 'object' || servers === null)
    throw new ConfigError("mcpTools: 'servers' must map server names to configurations.", {
      field: 'servers',
    });
  const clients = new Map<string, McpClient>();
  const owned: McpClient[] = [];
  for (const [name, server] of Object.entries(servers)) {
    if (server instanceof McpClient) {
      if (server.name !== name)
        throw new ConfigError(`mcpTools: the client under 'servers.${name}' is named '${server.name}'.`, {
          field: `servers.${name}`,
        });
      clients.set(name, server);
    } else {
      const client = new McpClient(name, server);
      clients.set(name, client);
      owned.push(client);
    }
  }
  const list = [...clients.values()];
  const close = async () => {
    await Promise.all(owned.map((client) => client.close()));
  };
  return {
    name: options.name ?? 'mcp',
    clients,
    hooks: {
      beforeReply: async ({ ctx }) => ({
        tools: await buildAgentkitTools(list, {
          signal: ctx.signal,
          reserved: ctx.tools.map((tool) => tool.name),
          onStaleList: (client, error) =>
            ctx.logger.warn(
              `agentkit mcp: the tools of MCP server '${client.name}' could not be refreshed (${
                error instanceof Error ? error.message : String(error)
              }); using its last list.`,
            ),
        }),
      }),
    },
    async connect(connectOptions = {}) {
      const results = await Promise.allSettled(list.map((client) => client.connect(connectOptions)));
      const failed = results.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
    },
    close,
    [Symbol.asyncDispose]: close,
  };
}
