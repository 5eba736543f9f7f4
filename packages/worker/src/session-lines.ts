import type { SessionKey } from '@agentkit/core';
import { checkKeyPrefix, escapeKeyPart, type LuaScript, runScript } from '@agentkit/storage-redis/connection';
import type { Cluster, Redis } from 'ioredis';
import { DROP_HEAD, ENTER_USER, INTERRUPT, LEAVE, PLACE, RESERVE } from './session-line-scripts';

/** Lines and counters live this long after their last change (a week). */
const TTL_SECONDS = 7 * 86_400;

/** Where a job stands in its session's line. */
export interface Place {
  /** `head`: its turn; `behind`: another job of the session goes first; `gone`: its run is over. */
  place: 'head' | 'behind' | 'gone';
  /** The job at the head (`null`: the line is empty). */
  head: string | null;
  /** Jobs of the session with a sequence number up to this one were interrupted. */
  interruptedThrough: number;
}

/**
 * The per-session state the queue keeps in Redis, next to the session's record (same hash tag as
 * `@agentkit/storage-redis`, so one script touches one Redis Cluster slot). With `P` the key prefix and
 * `Q` the queue name:
 * - `P:{user:agent}:line:Q:session`: list, the ids of the session's jobs in arrival order; the head runs;
 * - `P:{user:agent}:meta:Q:session`: hash, `seq` (the last sequence number handed out) and `int` (jobs
 *   with a sequence number up to it were interrupted: an interrupt that sticks);
 * - `P:{user}:running:Q`: sorted set, the user's running jobs (for `maxRunningRepliesPerUser`).
 */
export class SessionLines {
  constructor(
    private readonly client: Redis | Cluster,
    private readonly prefix: string,
    private readonly queueName: string,
  ) {
    checkKeyPrefix(prefix);
  }

  /**
   * Puts a job at the end of the session's line and returns its sequence number and how many jobs are
   * ahead of it; with `reject`, only when the line is empty: else returns the job at its head.
   */
  async reserve(
    session: SessionKey,
    jobId: string,
    mode: 'reject' | 'queue',
  ): Promise<{ seq: number; ahead: number } | { busy: string }> {
    const [seq, head, ahead] = (await this.run(RESERVE, this.keys(session), [jobId, mode, TTL_SECONDS])) as [
      number,
      string,
      number,
    ];
    return seq === 0 ? { busy: head } : { seq, ahead };
  }

  /** Where the job stands, and the session's interrupt mark. */
  async place(session: SessionKey, jobId: string): Promise<Place> {
    const [place, head, interrupted] = (await this.run(PLACE, this.keys(session), [jobId])) as [
      number,
      string,
      number,
    ];
    return {
      place: place === 1 ? 'head' : place === 0 ? 'behind' : 'gone',
      head: head === '' ? null : head,
      interruptedThrough: Number(interrupted),
    };
  }

  /** Takes the job out of the line; returns the job now at the head, if any. */
  async leave(session: SessionKey, jobId: string): Promise<string | null> {
    const next = await this.run(LEAVE, [this.keys(session)[0]!], [jobId]);
    return typeof next === 'string' ? next : null;
  }

  /** Removes the head if it is still `jobId` (a job that no longer exists or is over). */
  async dropHead(session: SessionKey, jobId: string): Promise<boolean> {
    return (await this.run(DROP_HEAD, [this.keys(session)[0]!], [jobId])) === 1;
  }

  /** Marks every job in the session's line as interrupted; returns the head, or `null` for an empty line. */
  async interrupt(session: SessionKey): Promise<string | null> {
    const head = await this.run(INTERRUPT, this.keys(session), []);
    return typeof head === 'string' ? head : null;
  }

  /** The interrupt marks of several sessions (sent together). */
  async interruptMarks(sessions: SessionKey[]): Promise<number[]> {
    if (sessions.length === 0) return [];
    const results = await Promise.all(sessions.map((s) => this.client.hget(this.keys(s)[1]!, 'int')));
    return results.map((r) => Number(r ?? 0));
  }

  /** Counts the job as running for its user, unless `max` of the user's jobs run; `false` then. */
  async enterUser(userId: string, jobId: string, max: number, ttlMs: number): Promise<boolean> {
    return (await this.run(ENTER_USER, [this.userKey(userId)], [jobId, Math.ceil(ttlMs), max])) === 1;
  }

  /** The job no longer runs for its user. */
  async leaveUser(userId: string, jobId: string): Promise<void> {
    await this.client.zrem(this.userKey(userId), jobId);
  }

  /** The keys of a session: its line and its meta hash. */
  keys(session: SessionKey): [line: string, meta: string] {
    const tag = `${this.prefix}:{${escapeKeyPart(session.userId)}:${escapeKeyPart(session.agentId)}}`;
    const name = `${escapeKeyPart(this.queueName)}:${escapeKeyPart(session.sessionId)}`;
    return [`${tag}:line:${name}`, `${tag}:meta:${name}`];
  }

  private userKey(userId: string): string {
    return `${this.prefix}:{${escapeKeyPart(userId)}}:running:${escapeKeyPart(this.queueName)}`;
  }

  private run(script: LuaScript, keys: string[], args: Array<string | number>): Promise<unknown> {
    return runScript(this.client, script, keys, args);
  }
}
