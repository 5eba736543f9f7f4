import type { ChatModel } from './model';
import type { LoggerOption } from './logger';
import type { PluginOption } from './plugin';
import type { AgentState } from './state';
import type { Tool } from './tool';

/** How failed model calls are retried (only failures before any output was streamed, and retryable ones). */
export interface ModelRetryOptions {
  /** Extra attempts per model. Default 2. */
  maxRetries?: number;
  /** First backoff delay; doubles each attempt (a provider's `retry-after` wins). Default 500 ms. */
  initialDelayMs?: number;
  /** Cap of one delay. Default 10 s. */
  maxDelayMs?: number;
}

/** Options of `new Agent(...)`. */
export interface AgentOptions {
  /** The agent's name: the `name` of its messages and events. */
  name: string;
  systemPrompt?: string;
  model: ChatModel;
  /** Tried after the primary model has used all its attempts. */
  fallbackModel?: ChatModel;
  tools?: readonly Tool[];
  plugins?: readonly PluginOption[];
  /** A state to continue from (an object or its JSON text); validated, never mutated. */
  state?: AgentState | string;
  /** Reasoning–acting iterations per reply before it ends `exceed_max_iters`. Default 50. */
  maxIters?: number;
  modelRetry?: ModelRetryOptions;
  /**
   * Where the agent and its plugins log: any object with some of `debug`, `info`, `warn`, `error` (levels
   * left out are silent). Default `consoleLogger()`: warnings and errors to `console`.
   */
  logger?: LoggerOption;
}
