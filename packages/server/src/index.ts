export { createAgentServer, type AgentServer } from './create-agent-server';
export { toMessages } from './to-messages';
export type {
  AgentDefinition,
  AgentServerOptions,
  ServerContext,
  ServerExtension,
  ServerVariables,
} from './agent-server-options';
export type { FollowOptions, SseMessage } from './follow-log';
export { followRun } from './follow-run';
export { latestReplyStart } from './latest-reply-start';
export { toSseMessages } from './to-sse-messages';
export type { RouteDoc } from './openapi';
export type { EventLog, LogEntry, LogEvent, RunEndEvent, RunStartEvent, RunStatus } from './event-log';
export { InMemoryEventLog, type InMemoryEventLogOptions } from './in-memory-event-log';
export { InProcessRunner, type InProcessRunnerOptions } from './in-process-runner';
export {
  runReply,
  type AgentFactory,
  type ReplyRun,
  type ReplyRunOutcome,
  type RunReplyOptions,
} from './run-reply';
export type { ReplyRequest, ReplyRunner, StartedRun } from './runner';
export { ServerDrainingError, TooManyRepliesError } from './errors';
export type { Problem } from './problem';
export type { SessionStatus, SessionView } from './session-view';
export { compareLogIds, formatLogId, parseLogId, type LogId } from './log-ids';
