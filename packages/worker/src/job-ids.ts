import type { Queue } from 'bullmq';

/** A line entry this old whose job does not exist was left by a process that died while enqueuing. */
const ORPHAN_AFTER_MS = 30_000;

/** A new job id: the enqueue time (ms) and a random part, so a line entry tells its age. */
export function newJobId(): string {
  return `${Date.now()}-${crypto.randomUUID()}`;
}

/**
 * True for a line entry whose job is over (completed, failed) or was never added (its process died
 * between taking the place and adding the job): it must not hold the session's line.
 */
export async function isStaleEntry(queue: Queue, jobId: string): Promise<boolean> {
  const state = await queue.getJobState(jobId);
  if (state === 'completed' || state === 'failed') return true;
  const enqueuedAt = Number.parseInt(jobId, 10);
  return state === 'unknown' && Number.isFinite(enqueuedAt) && Date.now() - enqueuedAt > ORPHAN_AFTER_MS;
}
