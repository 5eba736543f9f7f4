import { sleep } from './sleep';
import { thrownText } from './thrown-text';
import type { ModelRetryOptions } from './agent-options';
import { classifyError } from './error-info';
import { AgentkitError } from './errors/agentkit-error';
import { ModelError } from './errors/model-error';
import type { AgentLimits } from './agent-limits';
import type { Logger } from './logger';
import type { ChatModel, ModelChunk, ModelRequest } from './model';

/** Models to try in order, and how to retry each. */
export interface ModelPlan {
  models: readonly ChatModel[];
  retry: Required<ModelRetryOptions>;
  /** Told (at debug level) about each retry and fallback. */
  logger?: Logger | undefined;
  /** `maxResponseChars` bounds every response streamed through {@link streamModel}. */
  limits?: Pick<AgentLimits, 'maxResponseChars'> | undefined;
}

/** An opened model stream whose first chunk has been read, and the model that answered. */
export interface OpenedStream {
  iterator: AsyncIterator<ModelChunk>;
  first: IteratorResult<ModelChunk>;
  model: ChatModel;
}

/**
 * Opens a model stream and reads its first chunk, retrying retryable failures (honouring a provider's
 * `retry-after`, else exponential backoff) and then the next model of the plan. Failures after the first
 * chunk are not retried here: output has been streamed already. Aborts are never retried.
 */
export async function openModelStream(plan: ModelPlan, request: ModelRequest): Promise<OpenedStream> {
  const { maxRetries, initialDelayMs, maxDelayMs } = plan.retry;
  let lastError: unknown;
  for (const [index, model] of plan.models.entries()) {
    if (index > 0) plan.logger?.debug?.('agentkit: the model failed; trying the fallback model');
    for (let attempt = 0; attempt <= maxRetries; attempt++) {
      try {
        const iterator = model.stream(request)[Symbol.asyncIterator]();
        return { iterator, first: await iterator.next(), model };
      } catch (error) {
        if (request.signal.aborted) throw error;
        lastError = error;
        const retryable =
          AgentkitError.isInstance(error) && error.code === 'MODEL'
            ? (error as ModelError).retryable
            : classifyError(error).type === 'connection';
        if (!retryable) break;
        if (attempt < maxRetries) {
          const retryAfter = (error as Partial<ModelError>).retryAfterMs;
          const delayMs = Math.min(maxDelayMs, retryAfter ?? initialDelayMs * 2 ** attempt);
          plan.logger?.debug?.(
            `agentkit: model call failed (${thrownText(error)}); retry ${attempt + 1} of ${maxRetries} in ${delayMs} ms`,
          );
          await sleep(delayMs, request.signal);
        }
      }
    }
  }
  throw lastError;
}

/** Streams a whole model call through {@link openModelStream}'s retries and fallbacks. */
export async function* streamModel(plan: ModelPlan, request: ModelRequest): AsyncGenerator<ModelChunk> {
  const { iterator, first } = await openModelStream(plan, request);
  yield* limitedChunks(iterator, first, plan.limits?.maxResponseChars);
}

/**
 * The chunks of an opened stream, from its first. Past `max` characters (text, thinking, arguments, data)
 * it throws an `upstream` {@link ModelError}; stopped early, it closes the provider's stream too.
 */
export async function* limitedChunks(
  iterator: AsyncIterator<ModelChunk>,
  first: IteratorResult<ModelChunk>,
  max = Number.POSITIVE_INFINITY,
): AsyncGenerator<ModelChunk> {
  let chars = 0;
  let done = false;
  try {
    for (let r = first; !r.done; r = await iterator.next()) {
      const chunk = r.value as { delta?: unknown; data?: unknown } | null;
      if ((chars += String(chunk?.delta ?? chunk?.data ?? '').length) > max)
        throw new ModelError(
          'upstream',
          `The model's response exceeded ${max} characters (limits.maxResponseChars).`,
          {
            retryable: false,
          },
        );
      yield r.value;
    }
    done = true;
  } finally {
    if (!done) void iterator.return?.()?.catch(() => {});
  }
}
