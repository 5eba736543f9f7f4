/** The servers SRV compares. */
export const SERVER_SUBJECTS = ['agentkit-server', 'bare-hono'] as const;

/** A server SRV measures. */
export type ServerSubject = (typeof SERVER_SUBJECTS)[number];

/**
 * One SRV measurement (one server process, and one client process it starts):
 * - `reply`: replies one at a time, each one tool call and a short answer (S2's turn) in a new session;
 * - `deltas`: one long streamed answer at a time (S3's `deltas` one-word deltas);
 * - `streams`: `streams` replies at once, each in its own session, held open mid-answer.
 */
export interface ServerJob {
  scenario: 'SRV';
  subject: ServerSubject;
  part: 'reply' | 'deltas' | 'streams';
  warmupMs: number;
  measureMs: number;
  deltas: number;
  streams: number;
}
