import type { ChatModel } from './model';
import type { Logger } from './logger';
import type { PluginOption } from './plugin';
import type { AgentState } from './state';
import type { Tool } from './tool';

/** How failed model calls are retried (only failures before any output was streamed, and retryable ones). */
export interface ModelRetryOptions {
  /** Extra attempts per model. Default 2. */
  maxRetries?: number | undefined;
  /** First backoff delay; doubles each attempt (a provider's `retry-after` wins). Default 500 ms. */
  initialDelayMs?: number | undefined;
  /** Cap of one delay. Default 10 s. */
  maxDelayMs?: number | undefined;
}

/** Options of `new Agent(...)`. */
export interface AgentOptions {
  /** The agent's name: the `name` of its messages and events. */
  name: string;
  systemPrompt?: string | undefined;
  model: ChatModel;
  /** Tried after the primary model has used all its attempts. */
  fallbackModel?: ChatModel | undefined;
  tools?: readonly Tool[] | undefined;
  plugins?: readonly PluginOption[] | undefined;
  /** A state to continue from (an object or its JSON text); validated, never mutated. */
  state?: AgentState | string | undefined;
  /** Reasoning–acting iterations per reply before it ends `exceed_max_iters`. Default 50. */
  maxIters?: number | undefined;
  modelRetry?: ModelRetryOptions | undefined;
  /**
   * Where the agent and its plugins log (`debug` and `info` are optional). Default `consoleLogger()`:
   * warnings and errors to `console`, debug and info dropped.
   */
  logger?: Logger | undefined;
}
