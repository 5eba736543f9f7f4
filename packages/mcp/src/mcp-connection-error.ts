import { AgentkitError } from '@agentkit/core';

/**
 * An MCP server could not be reached: its command failed to start or exited during the handshake, its
 * URL refused the connection or answered with an HTTP error, or it did not finish the handshake in time.
 * `server` names it (the key in `servers`); the message says what happened (with the end of the
 * process's stderr for a stdio server). Nothing ran on the server.
 */
export class McpConnectionError extends AgentkitError {
  /** The server's name. */
  readonly server: string;

  constructor(server: string, message: string, options?: { cause?: unknown }) {
    super('MCP_CONNECTION', message, options);
    this.server = server;
  }
}
