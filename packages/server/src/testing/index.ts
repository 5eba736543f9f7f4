export {
  eventLogConformanceCases,
  type EventLogFactory,
  type EventLogFactoryOptions,
} from './event-log-conformance';
