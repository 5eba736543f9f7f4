/** The stores CKPT compares: `none` is S1 as it is (plain `agent.reply`, nothing saved). */
export const CHECKPOINT_STORES = ['none', 'memory', 'redis'] as const;

/** A store CKPT measures. */
export type CheckpointStore = (typeof CHECKPOINT_STORES)[number];

/** One CKPT measurement (one process): S1 at `k` through `runSession` with `store`. */
export interface CheckpointJob {
  scenario: 'CKPT';
  store: CheckpointStore;
  k: number;
  warmupMs: number;
  measureMs: number;
}
