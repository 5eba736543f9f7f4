import { AgentkitError } from '@agentkit/core';

/**
 * An MCP request (`tools/list`, `tools/call`) failed at the protocol level: the server answered with a
 * JSON-RPC error (unknown tool, invalid arguments), did not answer within the timeout, sent a malformed
 * result, or the connection dropped while waiting. A tool that ran and failed is not this error: that is
 * a result with `isError: true`.
 */
export class McpRequestError extends AgentkitError {
  /** The server's name. */
  readonly server: string;
  /** The MCP method, e.g. `tools/call`. */
  readonly method: string;
  /** The JSON-RPC error code, when the failure had one (`-32001` is a timeout, `-32000` a closed connection). */
  readonly rpcCode: number | undefined;
  /** True when the server did not answer within the timeout (MCP cancellation was sent). */
  readonly timedOut: boolean;

  constructor(
    server: string,
    method: string,
    message: string,
    options: { rpcCode?: number; timedOut?: boolean; cause?: unknown } = {},
  ) {
    super('MCP_REQUEST', message, { cause: options.cause });
    this.server = server;
    this.method = method;
    this.rpcCode = options.rpcCode;
    this.timedOut = options.timedOut ?? false;
  }
}
