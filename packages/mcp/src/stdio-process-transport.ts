import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

/**
 * The SDK's stdio transport, closing once: every `close()` waits for the same shutdown of the process
 * (stdin closed, then SIGTERM, then SIGKILL). The SDK's own `close()` hands the process to its first caller
 * and returns at once to the others, so the client closing after a failed handshake (the SDK already
 * started a close) would not wait, and a process exiting meanwhile would leave the server running.
 */
export class StdioProcessTransport extends StdioClientTransport {
  private closing: Promise<void> | undefined;

  override close(): Promise<void> {
    this.closing ??= super.close();
    return this.closing;
  }
}
