import type { AgentLimits } from './agent-limits';
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
   * Limits against a misbehaving model: parallel tool calls, tool calls per response, characters of one
   * call's arguments and of one response. Each one hit is recorded where the model sees it (see
   * {@link AgentLimits}); missing fields keep their defaults.
   */
  limits?: Partial<AgentLimits> | undefined;
  /**
   * Where the agent and its plugins log (`debug` and `info` are optional). Default `consoleLogger()`:
   * warnings and errors to `console`, debug and info dropped.
   */
  logger?: Logger | undefined;
}
