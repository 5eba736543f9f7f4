import { ConfigError } from './errors/config-error';

/**
 * Limits against a model that misbehaves (or is steered by hostile input). Each one, when hit, is
 * recorded where the model sees it — an `error` tool result or a hint — and the reply goes on; none
 * crashes the reply or lets one response exhaust the process.
 */
export interface AgentLimits {
  /** Calls of concurrency-safe tools from one response that run at the same time. Default 8. */
  maxParallelToolCalls: number;
  /** Tool calls one model response may make; each call past it gets an `error` result and does not run. Default 64. */
  maxToolCallsPerResponse: number;
  /**
   * Characters of one call's arguments (its JSON text). Past it the rest is not kept, and the call gets an
   * `error` result instead of running; its stored input is emptied. Default 1,000,000.
   */
  maxToolInputChars: number;
  /**
   * Characters one model response may stream (text, thinking, tool arguments, base64 data, provider data as
   * JSON, 64 for each new block). Past it the
   * response is cut off: its tool calls get `error` results and do not run, and a hint tells the model.
   * Default 32,000,000.
   */
  maxResponseChars: number;
}

/** The default {@link AgentLimits}. */
export const DEFAULT_AGENT_LIMITS: Readonly<AgentLimits> = {
  maxParallelToolCalls: 8,
  maxToolCallsPerResponse: 64,
  maxToolInputChars: 1_000_000,
  maxResponseChars: 32_000_000,
};

/** The agent's limits: the defaults with `given` over them. Throws `ConfigError` for a value that is not an integer ≥ 1. */
export function resolveLimits(given: Partial<AgentLimits> | undefined): AgentLimits {
  if (given === undefined) return DEFAULT_AGENT_LIMITS as AgentLimits;
  if (typeof given !== 'object' || given === null)
    throw new ConfigError("Agent option 'limits' must be an object.", { field: 'limits' });
  const limits = { ...DEFAULT_AGENT_LIMITS };
  for (const key of Object.keys(DEFAULT_AGENT_LIMITS) as Array<keyof AgentLimits>) {
    const value = given[key];
    if (value === undefined) continue;
    if (!Number.isSafeInteger(value) || value < 1)
      throw new ConfigError(`Agent option 'limits.${key}' must be an integer ≥ 1.`, {
        field: `limits.${key}`,
      });
    limits[key] = value;
  }
  return limits;
}
