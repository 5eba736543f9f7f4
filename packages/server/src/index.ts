export type { EventLog, LogEntry, LogEvent, RunEndEvent, RunStartEvent, RunStatus } from './event-log';
export { InMemoryEventLog, type InMemoryEventLogOptions } from './in-memory-event-log';
