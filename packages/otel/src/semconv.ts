/**
 * The OpenTelemetry GenAI semantic conventions this package emits: v1.41.1 of
 * open-telemetry/semantic-conventions (`docs/gen-ai/gen-ai-spans.md`, `gen-ai-agent-spans.md`,
 * `gen-ai-metrics.md`), the last release of the GenAI conventions in that repository.
 */
export const GENAI_SEMCONV_VERSION = '1.41.1';

/** The schema URL of {@link GENAI_SEMCONV_VERSION}, given to the tracer and meter. */
export const GENAI_SCHEMA_URL = `https://opentelemetry.io/schemas/${GENAI_SEMCONV_VERSION}`;

export const ATTR_GEN_AI_OPERATION_NAME = 'gen_ai.operation.name';
export const ATTR_GEN_AI_PROVIDER_NAME = 'gen_ai.provider.name';
/** Deprecated in 1.37 for `gen_ai.provider.name`; emitted by default, dropped by `gen_ai_latest_experimental`. */
export const ATTR_GEN_AI_SYSTEM = 'gen_ai.system';
export const ATTR_GEN_AI_AGENT_NAME = 'gen_ai.agent.name';
export const ATTR_GEN_AI_CONVERSATION_ID = 'gen_ai.conversation.id';
export const ATTR_GEN_AI_REQUEST_MODEL = 'gen_ai.request.model';
export const ATTR_GEN_AI_REQUEST_STREAM = 'gen_ai.request.stream';
export const ATTR_GEN_AI_OUTPUT_TYPE = 'gen_ai.output.type';
export const ATTR_GEN_AI_RESPONSE_MODEL = 'gen_ai.response.model';
export const ATTR_GEN_AI_RESPONSE_FINISH_REASONS = 'gen_ai.response.finish_reasons';
export const ATTR_GEN_AI_USAGE_INPUT_TOKENS = 'gen_ai.usage.input_tokens';
export const ATTR_GEN_AI_USAGE_OUTPUT_TOKENS = 'gen_ai.usage.output_tokens';
export const ATTR_GEN_AI_USAGE_CACHE_READ_INPUT_TOKENS = 'gen_ai.usage.cache_read.input_tokens';
export const ATTR_GEN_AI_USAGE_CACHE_CREATION_INPUT_TOKENS = 'gen_ai.usage.cache_creation.input_tokens';
export const ATTR_GEN_AI_USAGE_REASONING_OUTPUT_TOKENS = 'gen_ai.usage.reasoning.output_tokens';
export const ATTR_GEN_AI_TOOL_NAME = 'gen_ai.tool.name';
export const ATTR_GEN_AI_TOOL_CALL_ID = 'gen_ai.tool.call.id';
export const ATTR_GEN_AI_TOOL_TYPE = 'gen_ai.tool.type';
export const ATTR_GEN_AI_TOOL_DESCRIPTION = 'gen_ai.tool.description';
export const ATTR_GEN_AI_TOKEN_TYPE = 'gen_ai.token.type';
export const ATTR_ERROR_TYPE = 'error.type';
// Opt-in content attributes (`captureContent`).
export const ATTR_GEN_AI_SYSTEM_INSTRUCTIONS = 'gen_ai.system_instructions';
export const ATTR_GEN_AI_INPUT_MESSAGES = 'gen_ai.input.messages';
export const ATTR_GEN_AI_OUTPUT_MESSAGES = 'gen_ai.output.messages';
export const ATTR_GEN_AI_TOOL_DEFINITIONS = 'gen_ai.tool.definitions';
export const ATTR_GEN_AI_TOOL_CALL_ARGUMENTS = 'gen_ai.tool.call.arguments';
export const ATTR_GEN_AI_TOOL_CALL_RESULT = 'gen_ai.tool.call.result';
// agentkit's own attributes, for what the conventions have no name for.
export const ATTR_AGENTKIT_REPLY_ID = 'agentkit.reply.id';
export const ATTR_AGENTKIT_REPLY_FINISHED_REASON = 'agentkit.reply.finished_reason';
export const ATTR_AGENTKIT_TOOL_RESULT_STATE = 'agentkit.tool.result_state';
export const ATTR_AGENTKIT_TOOL_CALL_STATE = 'agentkit.tool.call.state';
export const ATTR_AGENTKIT_TOOL_EXTERNAL = 'agentkit.tool.external';

/** `gen_ai.operation.name` values this package emits. */
export type GenAiOperation = 'invoke_agent' | 'chat' | 'execute_tool';

export const METRIC_GEN_AI_CLIENT_TOKEN_USAGE = 'gen_ai.client.token.usage';
export const METRIC_GEN_AI_CLIENT_OPERATION_DURATION = 'gen_ai.client.operation.duration';

/** The conventions' bucket advice for `gen_ai.client.token.usage` ({token}). */
export const TOKEN_USAGE_BUCKETS: readonly number[] = [
  1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864,
];

/** The conventions' bucket advice for `gen_ai.client.operation.duration` (seconds). */
export const OPERATION_DURATION_BUCKETS: readonly number[] = [
  0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92,
];

/** The value of `error.type` when none of ours applies (the conventions' fallback). */
export const ERROR_TYPE_OTHER = '_OTHER';
/** `error.type` of a tool call whose result is an error (it threw, got invalid input, or does not exist). */
export const ERROR_TYPE_TOOL = 'tool_error';
