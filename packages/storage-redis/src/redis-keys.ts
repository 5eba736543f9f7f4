import type { SessionKey } from '@agentkit/core';
import { checkKeyPrefix, escapeKeyPart } from './connection/key-parts';

/**
 * The keys of a (user, agent) pair and of one of its sessions. Layout (with `P` the key prefix, ids escaped
 * by {@link escapeKeyPart}):
 * - `P:{user:agent}:sessions`: sorted set, the index of the pair's sessions (member `createdAtMs:session`);
 * - `P:{user:agent}:s:session`: hash, one session record;
 * - `P:{user:agent}:l:session`: hash, the session's lease (kept when the record is deleted).
 *
 * Everything of a (user, agent) pair shares the hash tag `{user:agent}`, so one Lua script can create a
 * record and index it atomically on Redis Cluster.
 */
export class RedisKeys {
  constructor(private readonly prefix: string) {
    checkKeyPrefix(prefix);
  }

  /** The common start of the keys of the pair: `P:{user:agent}:`. */
  pairPrefix(userId: string, agentId: string): string {
    return `${this.prefix}:{${escapeKeyPart(userId)}:${escapeKeyPart(agentId)}}:`;
  }

  /** The sorted set indexing the pair's sessions. */
  index(userId: string, agentId: string): string {
    return `${this.pairPrefix(userId, agentId)}sessions`;
  }

  /** The hash holding one session record. */
  record(key: SessionKey): string {
    return `${this.pairPrefix(key.userId, key.agentId)}s:${escapeKeyPart(key.sessionId)}`;
  }

  /** The hash holding the lease of a session. */
  lease(key: SessionKey): string {
    return `${this.pairPrefix(key.userId, key.agentId)}l:${escapeKeyPart(key.sessionId)}`;
  }

  /** The index member of a session: its creation time (ms, 16 digits) and escaped id, so members sort newest last. */
  static member(createdAtMs: number, sessionId: string): string {
    return `${String(createdAtMs).padStart(16, '0')}:${escapeKeyPart(sessionId)}`;
  }
}
