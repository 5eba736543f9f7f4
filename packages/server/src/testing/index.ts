export { agentEvents } from './agent-events';
export {
  eventLogConformanceCases,
  type EventLogFactory,
  type EventLogFactoryOptions,
} from './event-log-conformance';
export { readSse, type SseEntry, SseReader } from './sse-reader';
