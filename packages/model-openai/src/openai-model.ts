import { type ChatModel, ConfigError, type ModelChunk, type ModelRequest } from '@agentkit/core';
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import type { ResponseCreateParamsStreaming } from 'openai/resources/responses/responses';
import { type ReasoningReplay, toChatMessages, toChatToolChoice, toChatTools } from './chat-request';
import { chatChunks } from './chat-stream';
import { contextSizeFor, isOpenAIReasoningModel } from './context-size';
import { toResponsesInput, toResponsesToolChoice, toResponsesTools } from './responses-request';
import { responsesChunks } from './responses-stream';
import { toModelError } from './to-model-error';

/** Reasoning settings: `effort` for both APIs, `summary` for Responses. */
export interface OpenAIReasoningOptions {
  effort?: 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | undefined;
  summary?: 'auto' | 'concise' | 'detailed' | undefined;
}

/** Options of {@link createOpenAIModel}. */
export interface OpenAIModelOptions {
  /** The model name sent to the API, e.g. `gpt-4.1-mini`, `deepseek-chat`, `qwen3:8b`. */
  model: string;
  /** Which API: Chat Completions (default; what OpenAI-compatible servers speak) or Responses. */
  api?: 'chat' | 'responses' | undefined;
  /** A configured `OpenAI` client to use. Otherwise one is built from `apiKey`, `baseURL`, `maxRetries`, `timeout`. */
  client?: OpenAI | undefined;
  /** Default: `OPENAI_API_KEY`. Not needed with `baseURL` for servers without authentication. */
  apiKey?: string | undefined;
  /** An OpenAI-compatible endpoint, e.g. `http://localhost:11434/v1` (Ollama). Default: `OPENAI_BASE_URL` or OpenAI. */
  baseURL?: string | undefined;
  /** SDK-level retries of the built client. Default 0: the agent loop retries model calls itself. */
  maxRetries?: number | undefined;
  /** Request timeout of the built client, in ms. */
  timeout?: number | undefined;
  /** Context window in tokens. Default: from a table of known models, else 128 000. */
  contextSize?: number | undefined;
  /** Reported name (events, logs). Default: `model`. */
  name?: string | undefined;
  reasoning?: OpenAIReasoningOptions | undefined;
  maxOutputTokens?: number | undefined;
  temperature?: number | undefined;
  parallelToolCalls?: boolean | undefined;
  /**
   * Extra fields merged into every request body, for server-specific settings, e.g.
   * `{ enable_thinking: true }` (Qwen) or `{ thinking: { type: 'enabled' } }`.
   */
  extraBody?: Record<string, unknown> | undefined;
  /** Chat: when earlier `reasoning_content` goes back to the server. Default `tool-loop`. */
  reasoningReplay?: ReasoningReplay | undefined;
  /** Responses: whether OpenAI stores responses. Default `false` (the agent keeps the history). */
  store?: boolean | undefined;
  /**
   * Responses: request encrypted reasoning so it can be sent back on later turns without `store`.
   * Default: on for OpenAI reasoning models (o-series, gpt-5) or when `reasoning` is set, and `store` is off.
   */
  includeEncryptedReasoning?: boolean | undefined;
}

/**
 * A {@link ChatModel} over the `openai` SDK, for OpenAI and OpenAI-compatible servers. Streams text,
 * thinking (`reasoning_content` or Responses reasoning summaries), parallel tool calls and usage, and
 * throws classified `ModelError`s.
 */
export class OpenAIModel implements ChatModel {
  readonly name: string;
  readonly contextSize: number;
  /** The SDK client requests go through. */
  readonly client: OpenAI;
  private readonly options: OpenAIModelOptions;

  constructor(options: OpenAIModelOptions) {
    if (typeof options?.model !== 'string' || options.model === '')
      throw new ConfigError('createOpenAIModel needs a model name, e.g. { model: "gpt-4.1-mini" }.', {
        field: 'model',
      });
    if (options.api !== undefined && options.api !== 'chat' && options.api !== 'responses')
      throw new ConfigError(`Unknown api '${String(options.api)}'; use 'chat' or 'responses'.`, {
        field: 'api',
      });
    if (
      options.contextSize !== undefined &&
      !(Number.isInteger(options.contextSize) && options.contextSize > 0)
    )
      throw new ConfigError('contextSize must be a positive integer.', { field: 'contextSize' });
    this.options = options;
    this.name = options.name ?? options.model;
    this.contextSize = options.contextSize ?? contextSizeFor(options.model);
    this.client = options.client ?? buildClient(options);
  }

  async *stream(request: ModelRequest): AsyncIterable<ModelChunk> {
    const { signal } = request;
    const apiKey = this.client.apiKey ?? undefined;
    try {
      if (signal.aborted) throw abortReason(signal);
      const chunks =
        this.options.api === 'responses'
          ? responsesChunks(await this.client.responses.create(this.responsesParams(request), { signal }), {
              apiKey,
            })
          : chatChunks(await this.client.chat.completions.create(this.chatParams(request), { signal }));
      for await (const chunk of chunks) {
        if (signal.aborted) break;
        yield chunk;
      }
      // The SDK ends a stream quietly when it is aborted.
      if (signal.aborted) throw abortReason(signal);
    } catch (error) {
      if (signal.aborted) throw abortReason(signal);
      throw toModelError(error, { apiKey });
    }
  }

  /** The Chat Completions request body of `request`. */
  chatParams(request: ModelRequest): ChatCompletionCreateParamsStreaming {
    const o = this.options;
    const params: ChatCompletionCreateParamsStreaming = {
      model: o.model,
      messages: toChatMessages(request, o.reasoningReplay),
      stream: true,
      stream_options: { include_usage: true },
    };
    if (request.tools.length) {
      params.tools = toChatTools(request.tools);
      params.tool_choice = toChatToolChoice(request.toolChoice);
      if (o.parallelToolCalls !== undefined) params.parallel_tool_calls = o.parallelToolCalls;
    }
    if (o.reasoning?.effort)
      params.reasoning_effort = o.reasoning.effort as ChatCompletionCreateParamsStreaming['reasoning_effort'];
    if (o.maxOutputTokens !== undefined) params.max_completion_tokens = o.maxOutputTokens;
    if (o.temperature !== undefined) params.temperature = o.temperature;
    return { ...params, ...o.extraBody } as ChatCompletionCreateParamsStreaming;
  }

  /** The Responses request body of `request`. */
  responsesParams(request: ModelRequest): ResponseCreateParamsStreaming {
    const o = this.options;
    const store = o.store ?? false;
    const params: ResponseCreateParamsStreaming = {
      model: o.model,
      input: toResponsesInput(request.messages, { store, agentName: request.agentName }),
      stream: true,
      store,
    };
    if (request.systemPrompt) params.instructions = request.systemPrompt;
    if (request.tools.length) {
      params.tools = toResponsesTools(request.tools);
      params.tool_choice = toResponsesToolChoice(request.toolChoice);
      if (o.parallelToolCalls !== undefined) params.parallel_tool_calls = o.parallelToolCalls;
    }
    if (o.reasoning) params.reasoning = { ...o.reasoning } as ResponseCreateParamsStreaming['reasoning'];
    const encrypted =
      o.includeEncryptedReasoning ??
      (!store && (o.reasoning !== undefined || isOpenAIReasoningModel(o.model)));
    if (encrypted) params.include = ['reasoning.encrypted_content'];
    if (o.maxOutputTokens !== undefined) params.max_output_tokens = o.maxOutputTokens;
    if (o.temperature !== undefined) params.temperature = o.temperature;
    return { ...params, ...o.extraBody } as ResponseCreateParamsStreaming;
  }
}

/**
 * Creates an OpenAI model adapter.
 * @example
 * const model = createOpenAIModel({ model: 'gpt-4.1-mini' }); // OPENAI_API_KEY from the environment
 * const local = createOpenAIModel({ model: 'qwen3:8b', baseURL: 'http://localhost:11434/v1' });
 */
export function createOpenAIModel(options: OpenAIModelOptions): OpenAIModel {
  return new OpenAIModel(options);
}

function buildClient(options: OpenAIModelOptions): OpenAI {
  // `process` is missing in Workers and browsers: there the options are the only source.
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};
  const apiKey = options.apiKey ?? env.OPENAI_API_KEY;
  const baseURL = options.baseURL ?? env.OPENAI_BASE_URL;
  if (!apiKey && !baseURL)
    throw new ConfigError(
      'No OpenAI API key: pass { apiKey } or set OPENAI_API_KEY (or pass a baseURL for a server without authentication).',
      { field: 'apiKey' },
    );
  return new OpenAI({
    // Local OpenAI-compatible servers usually take any key.
    apiKey: apiKey || 'not-needed',
    ...(baseURL ? { baseURL } : {}),
    maxRetries: options.maxRetries ?? 0,
    ...(options.timeout !== undefined ? { timeout: options.timeout } : {}),
  });
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}
