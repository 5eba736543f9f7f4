import type { Msg } from './msg';
import type { AgentState } from './state';

/**
 * The model's last reported input tokens, next to core's estimate of that same request and the context
 * it was made from. A replaced context (compression, or anyone assigning `state.context`) makes the
 * report useless.
 */
export interface TokenCalibration {
  /** Set once someone counts the next request; only then does each model call keep its estimate. */
  calibrate: boolean;
  last: { context: Msg[]; summary: AgentState['summary']; estimate: number; reported: number } | undefined;
}

/**
 * Counts the next request: the provider's last reported input tokens plus the estimate of what was added
 * since (more exact than estimating everything), or the plain estimate when there is no usable report.
 */
export function calibratedCount(
  tokens: TokenCalibration,
  state: Pick<AgentState, 'context' | 'summary'>,
  estimateNow: () => number,
): number {
  tokens.calibrate = true;
  const estimate = estimateNow();
  const last = tokens.last;
  if (!last || last.context !== state.context || last.summary !== state.summary) return estimate;
  return Math.max(0, last.reported + estimate - last.estimate);
}
