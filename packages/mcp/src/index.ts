export {
  AgentMcpServer,
  type AgentMcpServerOptions,
  type AgentSession,
  type McpCaller,
} from './agent-mcp-server';
export { callResultToToolResult } from './call-result-to-tool-result';
export { McpClient, type McpCallOptions, type McpListOptions } from './mcp-client';
export { McpConnectionError } from './mcp-connection-error';
export { McpRequestError } from './mcp-request-error';
export { mcpTools, type McpToolsOptions, type McpToolsPlugin } from './mcp-tools-plugin';
export type {
  McpConfirmPolicy,
  McpConnectionOptions,
  McpHeaders,
  McpHttpServerConfig,
  McpServerConfig,
  McpStdioServerConfig,
  McpToolDefinition,
  McpToolOptions,
} from './server-config';
export { assignToolNames, sanitizeToolName, TOOL_NAME_PATTERN, type ToolNameRequest } from './tool-names';
