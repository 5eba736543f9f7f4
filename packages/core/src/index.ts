export { Agent, type ReplyStreamOptions, type AgentInput } from './agent';
export { awaitingToolCalls } from './reply-input';
export type { AgentOptions, ModelRetryOptions } from './agent-options';
export { DEFAULT_AGENT_LIMITS, type AgentLimits } from './agent-limits';
export type {
  Base64Source,
  ContentBlock,
  ContentBlockType,
  DataBlock,
  HintBlock,
  PermissionRule,
  ProviderData,
  TextBlock,
  ThinkingBlock,
  ToolCallBlock,
  ToolCallState,
  ToolResultBlock,
  ToolResultState,
  UrlSource,
} from './blocks';
export type { Capabilities, CompressionCapability, TasksCapability } from './capabilities';
export { classifyError, type ErrorInfo } from './error-info';
export { AgentkitError, type AgentkitErrorCode } from './errors/agentkit-error';
export type { ErrorType } from './errors/error-type';
export { ConfigError } from './errors/config-error';
export {
  InvalidInputError,
  MessageValidationError,
  ReplyPausedError,
  ResumeMismatchError,
} from './errors/input-errors';
export { ModelError } from './errors/model-error';
export { PluginHookError } from './errors/plugin-hook-error';
export { ReplyTimeoutError } from './errors/reply-timeout-error';
export { StateError } from './errors/state-error';
export {
  LeaseLostError,
  SessionBusyError,
  SessionNotFoundError,
  StoreConnectionError,
  StoreDataError,
  VersionConflictError,
  type SessionKey,
} from './errors/store-errors';
export * from './events';
export { newId } from './ids';
export { consoleLogger, toLogger, type LogLevel } from './logger';
export { InMemorySessionStore } from './in-memory-session-store';
export type { JSONObject, JSONPrimitive, JSONSchema, JSONValue } from './json';
export { MAX_JSON_DEPTH, jsonValueProblem } from './json-value-check';
export { isUnfinished } from './reply-input';
export type { ChatModel, ModelChunk, ModelRequest, TokenCountInput, ToolChoice, ToolSchema } from './model';
export {
  assistantMsg,
  createMsg,
  getBlocks,
  getText,
  systemMsg,
  textBlock,
  userMsg,
  validateMsg,
  type Msg,
  type MsgInit,
  type ReplyFinishedReason,
  type Role,
} from './msg';
export { definePlugin } from './plugin';
export type {
  AfterToolEvent,
  BeforeFinishEvent,
  BeforeInferenceEvent,
  BeforeReplyEvent,
  BeforeToolEvent,
  ContinueReply,
  HookErrorEvent,
  HookHandler,
  HookName,
  Hooks,
  InferenceRequest,
  InterceptorHookName,
  Logger,
  MaybePromise,
  ObserverHookName,
  PauseEvent,
  Plugin,
  PluginContext,
  PluginOption,
  PluginStateSpec,
  PluginTool,
  PluginToolContext,
  ReplyEndHookEvent,
  ReplyInput,
  ReplyOptions,
  SetupContext,
  ToolDecision,
} from './plugin';
export { applyEvent, replayEvents } from './replay-events';
export type {
  CallOptions,
  LeaseGrant,
  LeaseOptions,
  ListOptions,
  SessionPage,
  SessionRecord,
  SessionStore,
  SessionSummary,
  WriteOptions,
} from './session-store';
export { SessionLease, type SessionLeaseOptions } from './session-lease';
export { runSession, type RunSessionOptions, type SessionRunResult } from './run-session';
export { isStandardSchema, type StandardJSONSchemaV1, type StandardSchemaV1 } from './standard-schema';
export {
  AGENT_STATE_SCHEMA_VERSION,
  SUPPORTED_AGENT_STATE_VERSIONS,
  createAgentState,
  parseAgentState,
  type AgentState,
  type PermissionRules,
  type ReplyPosition,
} from './state';
export {
  DATA_BLOCK_TOKENS,
  TokenCounter,
  estimateBlockTokens,
  estimateTextTokens,
} from './token-count';
export { defineTool } from './define-tool';
export type {
  AnyTool,
  Tool,
  ToolChunk,
  ToolContext,
  ToolInputSchema,
  ToolOutput,
  ToolResult,
} from './tool';
export { toolJsonSchema, toolSchemas, zodVersionProblem } from './tool-input';
export { addUsage, emptyUsage, type Usage } from './usage';
