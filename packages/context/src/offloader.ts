import type { DataBlock, Msg, ToolResultBlock } from '@agentkit/core';

/**
 * Where context that leaves the model's window goes, so the agent can still refer to it. Implement it for
 * your own storage (object store, database); {@link FileOffloader} writes to a local directory.
 */
export interface Offloader {
  /**
   * Stores an inline (base64) data block and returns the same block pointing at a URL. A block that already
   * has a URL source comes back unchanged.
   */
  offloadDataBlock(block: DataBlock): Promise<DataBlock>;
  /**
   * Appends compressed messages to the session's archive and returns where they are (a path or URL). A
   * session id is unique only per user and agent (stores key sessions by all three): an offloader that
   * serves several users or agents must key its archives by them too, as {@link FileOffloader} does.
   */
  offloadContext(sessionId: string, msgs: readonly Msg[]): Promise<string>;
  /** Stores the cut-off part of a tool result and returns where it is (a path or URL); keyed like the archive. */
  offloadToolResult(sessionId: string, result: ToolResultBlock): Promise<string>;
}

/** True when `value` has the three {@link Offloader} methods. */
export function isOffloader(value: unknown): value is Offloader {
  if (typeof value !== 'object' || value === null) return false;
  const o = value as Record<string, unknown>;
  return (
    typeof o.offloadDataBlock === 'function' &&
    typeof o.offloadContext === 'function' &&
    typeof o.offloadToolResult === 'function'
  );
}
