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
export {
  sessionStoreConformanceCases,
  type ConformanceCase,
  type StoreFactory,
} from './session-store-conformance';
