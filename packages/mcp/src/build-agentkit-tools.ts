import type { JSONSchema, Tool, ToolResult } from '@agentkit/core';
import { callResultToToolResult } from './call-result-to-tool-result';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpServerConfig, McpToolDefinition } from './server-config';
import { assignToolNames } from './tool-names';

/**
 * What tools are built from: the parts of an `McpToolSource` this module uses (an interface of its own, so
 * the client can build its tools without the two modules importing each other).
 */
export interface McpToolSource {
  readonly name: string;
  readonly config: McpServerConfig;
  readonly lastListedTools: readonly McpToolDefinition[] | undefined;
  listTools(options?: { signal?: AbortSignal }): Promise<readonly McpToolDefinition[]>;
  callTool(
    name: string,
    args?: Record<string, unknown>,
    options?: { signal?: AbortSignal; idempotent?: boolean },
  ): Promise<CallToolResult>;
}

type AgentkitTool = Tool<Record<string, unknown>>;

/** Built tools by definition and name: a listing that did not change gives the very same tool objects. */
const built = new WeakMap<McpToolDefinition, Map<string, AgentkitTool>>();

/** Options of {@link buildAgentkitTools}. */
export interface BuildToolsOptions {
  signal?: AbortSignal;
  /** Names already mounted (the agent's own tools): MCP tools never take them. */
  reserved?: Iterable<string>;
  /**
   * Called when refreshing a server's list failed and its last list is used instead. Without it, the
   * failure is thrown.
   */
  onStaleList?: (client: McpToolSource, error: unknown) => void;
}

function keep(client: McpToolSource, tool: McpToolDefinition): boolean {
  const { include, exclude, filter } = client.config;
  if (include && !include.includes(tool.name)) return false;
  if (exclude?.includes(tool.name)) return false;
  // Tools that only run as MCP tasks cannot be called with a plain tools/call.
  if (tool.execution?.taskSupport === 'required') return false;
  return filter ? filter(tool) : true;
}

/**
 * Whether the tool asks the user first. The spec's defaults (`readOnlyHint: false`,
 * `destructiveHint: true`) make a tool without annotations destructive.
 */
function needsConfirmation(client: McpToolSource, tool: McpToolDefinition): boolean {
  const policy = client.config.confirm ?? 'destructive';
  if (typeof policy === 'function') return policy(tool);
  if (policy === 'always' || policy === 'never') return policy === 'always';
  const hints = tool.annotations ?? {};
  return hints.readOnlyHint !== true && hints.destructiveHint !== false;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function toAgentkitTool(client: McpToolSource, definition: McpToolDefinition, name: string): AgentkitTool {
  const hints = definition.annotations ?? {};
  const readOnly = hints.readOnlyHint === true;
  const idempotent = readOnly || hints.idempotentHint === true;
  const source = { server: client.name, tool: definition.name };
  return {
    name,
    description:
      definition.description ??
      definition.title ??
      hints.title ??
      `The tool '${definition.name}' of MCP server '${client.name}'.`,
    inputSchema: definition.inputSchema as JSONSchema,
    needsConfirmation: needsConfirmation(client, definition),
    // Calls that change nothing may run side by side, and run again after a crash.
    concurrencySafe: readOnly,
    idempotent,
    execute: async (input, ctx): Promise<ToolResult> => {
      try {
        const result = await client.callTool(definition.name, input, { signal: ctx.signal, idempotent });
        return callResultToToolResult(result, source);
      } catch (error) {
        if (ctx.signal.aborted) throw error;
        return {
          output: errorMessage(error),
          state: 'error',
          metadata: { mcpServer: source.server, mcpTool: source.tool },
        };
      }
    },
  };
}

/**
 * The agentkit tools of several servers, with names unique across them and `reserved`, in server order.
 * Lists every server in parallel (each listing is cached by its client).
 */
export async function buildAgentkitTools(
  clients: readonly McpToolSource[],
  options: BuildToolsOptions = {},
): Promise<Tool[]> {
  const lists = await Promise.all(
    clients.map(async (client) => {
      try {
        return await client.listTools(options.signal ? { signal: options.signal } : {});
      } catch (error) {
        const last = client.lastListedTools;
        if (!options.onStaleList || !last || options.signal?.aborted) throw error;
        options.onStaleList(client, error);
        return last;
      }
    }),
  );
  const entries = clients.flatMap((client, index) =>
    lists[index]!.filter((tool) => keep(client, tool)).map((definition) => ({ client, definition })),
  );
  const names = assignToolNames(
    entries.map(({ client, definition }) => ({
      server: client.name,
      tool: definition.name,
      prefix: client.config.prefix ?? '',
    })),
    options.reserved,
  );
  return entries.map(({ client, definition }, index) => {
    const name = names[index]!;
    let byName = built.get(definition);
    if (!byName) built.set(definition, (byName = new Map()));
    let tool = byName.get(name);
    if (!tool) byName.set(name, (tool = toAgentkitTool(client, definition, name)));
    return tool;
  });
}
