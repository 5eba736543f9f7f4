export {
  ScriptedModel,
  textChunks,
  thinkingChunk,
  toolCallChunk,
  usageChunk,
  type RecordedRequest,
  type ScriptedModelOptions,
  type ScriptedResponse,
} from './scripted-model';
export { pausedStateFixture, type PausedStateFixtureOptions } from './paused-state-fixture';
export {
  sessionStoreConformanceCases,
  type ConformanceCase,
  type StoreFactory,
} from './session-store-conformance';
