/**
 * What each benchmarked framework implements: the scenarios built from its own public API and mock
 * facility. Setup (building the agent, the model, the tool) happens before timing; the returned
 * functions are what is timed.
 */
export interface Subject {
  /** S1: one reply in which the model calls `add` `k` times, then answers. */
  s1(k: number): Promise<() => Promise<void>>;
  /** S2: one session; each call of the returned function is one user turn (one tool call + an answer). */
  s2(): Promise<(turn: number) => Promise<void>>;
  /** S3: the returned function streams an `n`-delta answer and returns how many text deltas reached it. */
  s3(n: number): Promise<() => Promise<number>>;
  /**
   * S4: returns a function that runs one session of `turns` text-only turns and returns what must be
   * held in memory to continue it (the history / state).
   */
  s4(): Promise<(session: number, turns: number) => Promise<unknown>>;
}
