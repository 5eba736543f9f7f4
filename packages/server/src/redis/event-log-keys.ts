import type { SessionKey } from '@agentkit/core';
import { checkKeyPrefix, escapeKeyPart } from '@agentkit/storage-redis/connection';

/**
 * The keys and channels of the event log. Layout (with `P` the key prefix, ids escaped by `escapeKeyPart`
 * of `@agentkit/storage-redis`, as the store's):
 * - `P:{user:agent}:events:session`: stream, the session's log (one entry per event, field `e`);
 * - `P:{user:agent}:wake:session`: channel, the id of the newest entry after each append (sharded
 *   pub/sub on Redis Cluster: it lives on the node of the stream);
 * - `P:interrupts`: channel, interrupt requests (`[userId, agentId, sessionId]` as JSON) for every process.
 *
 * A session's stream and wake-up channel share the hash tag `{user:agent}` of `@agentkit/storage-redis`,
 * so the session's record, lease and log live in one Redis Cluster slot, and one script can append and
 * publish. The names cannot collide with the store's (`…:sessions`, `…:s:…`, `…:l:…`).
 */
export class EventLogKeys {
  /** The channel of interrupt requests. */
  readonly interrupts: string;

  constructor(private readonly prefix: string) {
    checkKeyPrefix(prefix);
    this.interrupts = `${prefix}:interrupts`;
  }

  /** The stream holding the session's log. */
  stream(session: SessionKey): string {
    return `${this.pairPrefix(session)}events:${escapeKeyPart(session.sessionId)}`;
  }

  /** The channel announcing appends to the session's log. */
  wakeChannel(session: SessionKey): string {
    return `${this.pairPrefix(session)}wake:${escapeKeyPart(session.sessionId)}`;
  }

  private pairPrefix(session: SessionKey): string {
    return `${this.prefix}:{${escapeKeyPart(session.userId)}:${escapeKeyPart(session.agentId)}}:`;
  }
}
