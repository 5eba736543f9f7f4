import { ConfigError, type SessionKey } from '@agentkit/core';

const LEFT_UNESCAPED_BY_URI = /[!'()*~]/g;

/**
 * Escapes an id for use inside a Redis key, exactly as `@agentkit/storage-redis` does: every byte of its
 * UTF-8 form outside `[A-Za-z0-9_.-]` becomes `%XX`. The result never contains `:`, `{`, `}`, `*` or `%`
 * other than as an escape, so an id can neither reach another session's keys nor change the hash tag;
 * the mapping is one-to-one. (The id must be well-formed Unicode.)
 */
export function escapeKeyPart(id: string): string {
  return encodeURIComponent(id).replace(
    LEFT_UNESCAPED_BY_URI,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`,
  );
}

/**
 * The keys and channels of the event log. Layout (with `P` the key prefix, ids escaped by
 * {@link escapeKeyPart}):
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
    if (typeof prefix !== 'string' || /[{}]/.test(prefix))
      throw new ConfigError(
        `keyPrefix must be a string without '{' or '}' (they would change the Redis Cluster hash tag).`,
        { field: 'keyPrefix' },
      );
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
