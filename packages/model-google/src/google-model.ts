import {
  GoogleGenAI,
  type GenerateContentConfig,
  type GenerateContentParameters,
  type GenerateContentResponse,
  type GoogleGenAIOptions,
  type HttpOptions,
  type ThinkingConfig,
} from '@google/genai';
import {
  ConfigError,
  ModelError,
  type ChatModel,
  type ModelChunk,
  type ModelRequest,
  type TokenCountInput,
} from '@agentkit/core';
import { geminiContextSize } from './context-sizes';
import { GeminiStreamReader } from './gemini-stream-reader';
import { estimateTokens, GeminiTokenCounter } from './gemini-token-counter';
import { stableHash } from './stable-tool-call-id';
import { toGeminiContents } from './to-gemini-contents';
import { toGeminiToolConfig, toGeminiTools } from './to-gemini-tools';
import { toModelError } from './to-model-error';

/** Options of {@link createGoogleModel}. */
export interface GoogleModelOptions {
  /** The Gemini model, e.g. `gemini-2.5-flash` or `gemini-3-pro-preview`. */
  model: string;
  /** A ready client. When given, `apiKey`, `vertexai`, `httpOptions` and `googleAuthOptions` are ignored. */
  client?: GoogleGenAI | undefined;
  /** Gemini API key (default: the SDK reads `GOOGLE_API_KEY` or `GEMINI_API_KEY`). With `vertexai`: Vertex express mode. */
  apiKey?: string | undefined;
  /**
   * Use Vertex AI. `true` takes project and location from `GOOGLE_CLOUD_PROJECT` / `GOOGLE_CLOUD_LOCATION`
   * (or express mode with `apiKey`); credentials come from Application Default Credentials.
   */
  vertexai?: boolean | { project?: string | undefined; location?: string | undefined } | undefined;
  /** google-auth-library options for Vertex AI (service account key file, scopes…). */
  googleAuthOptions?: GoogleGenAIOptions['googleAuthOptions'] | undefined;
  /** HTTP options of the client built from these options (`baseUrl`, `headers`, `timeout`, `retryOptions`…). */
  httpOptions?: HttpOptions | undefined;
  /** Context window in tokens (default: from the model name, see `geminiContextSize`). */
  contextSize?: number | undefined;
  /** Thinking: `includeThoughts` streams thought summaries as thinking blocks. */
  thinking?: ThinkingConfig | undefined;
  /**
   * Extra generation settings sent on every call (`temperature`, `maxOutputTokens`, `safetySettings`…).
   * The adapter's own fields (system instruction, tools, tool config, abort signal) win.
   */
  config?:
    | Omit<GenerateContentConfig, 'systemInstruction' | 'tools' | 'toolConfig' | 'abortSignal'>
    | undefined;
  /**
   * Give the first function call of a model turn Google's documented placeholder signature when the turn
   * has none (history Gemini did not produce: another model, a scripted turn). Default: on for Gemini 3
   * models, which reject such turns otherwise.
   */
  fillMissingSignatures?: boolean | undefined;
  /**
   * Count tokens with Gemini's count-tokens endpoint (`models.countTokens`, cached; core's estimate when it
   * fails). Default `true`; `false` leaves counting to core's estimate.
   */
  countTokens?: boolean | undefined;
}

/** JSON text of `value`, cut to its first and last 64 KiB (a digest input; inline media can be megabytes). */
function boundedJson(value: unknown): string {
  const text = JSON.stringify(value ?? null);
  const limit = 65_536;
  return text.length <= 2 * limit ? text : `${text.length}:${text.slice(0, limit)}${text.slice(-limit)}`;
}

function buildClient(options: GoogleModelOptions): GoogleGenAI {
  const { vertexai } = options;
  const vertex = typeof vertexai === 'object' ? vertexai : {};
  return new GoogleGenAI({
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    ...(vertexai ? { vertexai: true } : {}),
    ...(vertex.project !== undefined ? { project: vertex.project } : {}),
    ...(vertex.location !== undefined ? { location: vertex.location } : {}),
    ...(options.googleAuthOptions ? { googleAuthOptions: options.googleAuthOptions } : {}),
    ...(options.httpOptions ? { httpOptions: options.httpOptions } : {}),
  });
}

function validate(options: GoogleModelOptions): void {
  if (typeof options.model !== 'string' || options.model.trim() === '')
    throw new ConfigError('createGoogleModel needs a model name, e.g. { model: "gemini-2.5-flash" }.', {
      field: 'model',
    });
  if (
    options.contextSize !== undefined &&
    !(Number.isInteger(options.contextSize) && options.contextSize > 0)
  )
    throw new ConfigError(`contextSize must be a positive integer (got ${String(options.contextSize)}).`, {
      field: 'contextSize',
    });
  const budget = options.thinking?.thinkingBudget;
  if (budget !== undefined && !(Number.isInteger(budget) && budget >= -1))
    throw new ConfigError(`thinking.thinkingBudget must be an integer ≥ -1 (got ${String(budget)}).`, {
      field: 'thinking.thinkingBudget',
    });
}

/**
 * A {@link ChatModel} over Gemini (`@google/genai`), for the Gemini API and Vertex AI. Build it with
 * {@link createGoogleModel}.
 */
export class GoogleModel implements ChatModel {
  /** The Gemini model name, as given. */
  readonly name: string;
  /** The context window in tokens (the `contextSize` option, else from the model name). */
  readonly contextSize: number;
  /** The SDK client the model calls. */
  readonly client: GoogleGenAI;
  /**
   * Counts tokens for core's counter (see {@link GeminiTokenCounter.count}): the endpoint's count when
   * this content was counted before, else a calibrated estimate while the endpoint counts it. Absent with
   * `countTokens: false`.
   */
  readonly countTokens: ((input: TokenCountInput) => number) | undefined;
  private readonly options: GoogleModelOptions;
  private readonly fillMissingSignatures: boolean;
  private readonly tokenCounter: GeminiTokenCounter | undefined;

  constructor(options: GoogleModelOptions) {
    validate(options);
    this.options = options;
    this.name = options.model;
    this.contextSize = options.contextSize ?? geminiContextSize(options.model);
    this.client = options.client ?? buildClient(options);
    this.fillMissingSignatures = options.fillMissingSignatures ?? /(^|\/)gemini-3/i.test(options.model);
    const counter =
      options.countTokens === false ? undefined : new GeminiTokenCounter(this.client, options.model);
    this.tokenCounter = counter;
    this.countTokens = counter ? (input) => counter.count(input) : undefined;
  }

  /**
   * Counts tokens through Gemini's count-tokens endpoint and waits for the answer (cached by content);
   * core's estimate when the endpoint fails or counting is off.
   */
  countTokensExact(input: TokenCountInput, signal?: AbortSignal): Promise<number> {
    if (!this.tokenCounter) return Promise.resolve(estimateTokens(input));
    return this.tokenCounter.countExact(input, signal);
  }

  /** The API key in use, to keep it out of error messages (the SDK keeps an injected client's key private). */
  private get apiKey(): string | undefined {
    const fromClient = (this.client as unknown as { apiKey?: unknown }).apiKey;
    return this.options.apiKey ?? (typeof fromClient === 'string' ? fromClient : undefined);
  }

  /** The `generateContentStream` parameters of a request (exposed for inspection and tests). */
  toParameters(request: ModelRequest): GenerateContentParameters {
    const tools = toGeminiTools(request.tools);
    const toolConfig = toGeminiToolConfig(request.toolChoice, request.tools);
    const config: GenerateContentConfig = {
      ...this.options.config,
      ...(request.systemPrompt ? { systemInstruction: request.systemPrompt } : {}),
      ...(tools ? { tools } : {}),
      ...(toolConfig ? { toolConfig } : {}),
      ...(this.options.thinking
        ? { thinkingConfig: { ...this.options.config?.thinkingConfig, ...this.options.thinking } }
        : {}),
      abortSignal: request.signal,
    };
    return {
      model: this.options.model,
      contents: toGeminiContents(request.messages, {
        fillMissingSignatures: this.fillMissingSignatures,
        agentName: request.agentName,
      }),
      config,
    };
  }

  /**
   * Streams one response through `models.generateContentStream`. Throws a classified `ModelError` on
   * failure; when `request.signal` aborts, the HTTP stream is cancelled and the signal's reason is thrown.
   */
  async *stream(request: ModelRequest): AsyncIterable<ModelChunk> {
    const { signal } = request;
    signal.throwIfAborted();
    const params = this.toParameters(request);
    // The SDK only releases its reader when iteration stops early, which leaves the HTTP response open:
    // the request gets its own signal, aborted when the caller's aborts or when this stream is left.
    const controller = new AbortController();
    const forwardAbort = () => controller.abort(signal.reason);
    signal.addEventListener('abort', forwardAbort, { once: true });
    params.config = { ...params.config, abortSignal: controller.signal };
    let complete = false;
    const contents = params.contents as unknown[];
    const reader = new GeminiStreamReader(
      () => `${contents.length}:${stableHash(boundedJson(contents.at(-1)))}`,
    );
    let iterator: AsyncIterator<GenerateContentResponse> | undefined;
    try {
      try {
        const responses = await this.client.models.generateContentStream(params);
        iterator = responses[Symbol.asyncIterator]();
      } catch (error) {
        signal.throwIfAborted();
        throw toModelError(error, { apiKey: this.apiKey });
      }
      while (true) {
        let next: IteratorResult<GenerateContentResponse>;
        try {
          next = await iterator.next();
        } catch (error) {
          signal.throwIfAborted();
          throw toModelError(error, { apiKey: this.apiKey });
        }
        signal.throwIfAborted();
        if (next.done) break;
        let chunks: ModelChunk[];
        try {
          chunks = reader.read(next.value);
        } catch (error) {
          // A response of the wrong shape (`parts` not a list, a `null` part, arguments nested too deep to
          // serialise) fails where it is read: say so, instead of leaking the reader's own error.
          throw new ModelError('upstream', 'Gemini sent a response of the wrong shape.', { cause: error });
        }
        yield* chunks;
      }
      complete = true;
    } finally {
      signal.removeEventListener('abort', forwardAbort);
      // Left early (consumer stopped, error): cancel the HTTP response, then stop the SDK's reader.
      if (!complete) controller.abort();
      await iterator?.return?.(undefined).catch(() => undefined);
    }
    yield* reader.finish();
  }
}

/**
 * Creates a Gemini {@link ChatModel}. Pass a `GoogleGenAI` client, or let it build one from `apiKey`
 * (Gemini API) or `vertexai` (Vertex AI).
 * @example
 * const model = createGoogleModel({ model: 'gemini-2.5-flash', apiKey: process.env.GEMINI_API_KEY });
 * const vertex = createGoogleModel({ model: 'gemini-2.5-pro', vertexai: { project: 'my-project', location: 'us-central1' } });
 */
export function createGoogleModel(options: GoogleModelOptions): GoogleModel {
  return new GoogleModel(options);
}
