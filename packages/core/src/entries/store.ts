// `@agentkit/core/store`: what session-store authors need beyond the contract itself (argument checks,
// record parsing, paging, lease bookkeeping). Applications import the contract from `@agentkit/core`.
export {
  DEFAULT_SESSION_LIST_LIMIT,
  checkCallOptions,
  checkExpectedVersion,
  checkLeaseOptions,
  checkLeaseToken,
  checkListOptions,
  checkSessionKey,
  checkUpdateArgs,
  checkUpsertArgs,
  checkWriteOptions,
  invalidCursor,
  parseStoredState,
  parseStoredSummary,
  serializeAgentState,
  throwIfAborted,
} from '../session-store-checks';
export { fileSegment } from '../file-segment';
export { nextSessionSummary, pageSessionSummaries } from '../session-summaries';
