export {
  AgUiEventMapper,
  APPROVAL_RESPONSE_SCHEMA,
  type AgUiEventMapperOptions,
  type AgUiRunOutcome,
} from './ag-ui-event-mapper';
export { replyInputFromRunAgentInput } from './reply-input-from-run-agent-input';
export { toAgUiEvents, toAgUiResponse, type ToAgUiEventsOptions } from './to-ag-ui-events';
export { toAgUiMessages } from './to-ag-ui-messages';
