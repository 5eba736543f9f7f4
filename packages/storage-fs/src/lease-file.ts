import type { LeaseGrant } from '@agentkit/core';
import { type ProcessOwner, processGone } from './process-owner';

/**
 * A version of a session's lease as stored in its lease directory: the grant, whether it was released,
 * and the process that took or last renewed it (so a lease whose process died is taken over at once).
 * `token` is larger than the last token, the number of the version that granted it and the time (ms)
 * of the grant, so tokens only grow even if a file or the whole lease directory is lost.
 */
export interface StoredLease extends LeaseGrant, ProcessOwner {
  released: boolean;
  /** When it was granted (ms since the epoch), for diagnostics. */
  grantedAt: number;
}

/** The text of a lease version (one JSON line). */
export function formatLease(lease: StoredLease): string {
  const { token, owner, expiresAt, released, host, pid, start, grantedAt } = lease;
  return `${JSON.stringify({ token, owner, expiresAt, released, host, pid, start, grantedAt })}\n`;
}

/** The lease in a lease version's text, or `null` when it is not one (a damaged file counts as no lease). */
export function parseLease(text: string): StoredLease | null {
  let value: Partial<StoredLease>;
  try {
    value = JSON.parse(text) as Partial<StoredLease>;
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const { token, owner, expiresAt, released, host, pid, start, grantedAt } = value;
  if (
    !Number.isSafeInteger(token) ||
    (token as number) < 1 ||
    typeof owner !== 'string' ||
    typeof expiresAt !== 'number' ||
    typeof released !== 'boolean' ||
    typeof host !== 'string' ||
    !Number.isSafeInteger(pid) ||
    typeof start !== 'string' ||
    typeof grantedAt !== 'number'
  )
    return null;
  return value as StoredLease;
}

/** True when the lease can still be used by its token (not released, not expired). */
export function leaseCurrent(lease: StoredLease, now: number): boolean {
  return !lease.released && lease.expiresAt > now;
}

/**
 * True when the lease keeps others out: current, and its process is not known to be gone (a lease of
 * a crashed process on this host is free at once, without waiting for its expiry).
 */
export function leaseLive(lease: StoredLease, now: number): boolean {
  return leaseCurrent(lease, now) && !processGone(lease);
}
