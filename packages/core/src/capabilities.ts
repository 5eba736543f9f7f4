import type { AgentState } from './state';

/**
 * What a compression plugin tells others (`@agentkit/context` provides it; `@agentkit/injection` reads
 * it to show the threshold). Read the fields at call time: `contextBufferRatio` may be overridden during
 * setup by a plugin that still accepts the deprecated option.
 */
export interface CompressionCapability {
  /** Compression triggers above `triggerRatio × contextSize` input tokens. */
  triggerRatio: number;
  /** How far below the trigger the "compression is near" buffer starts. */
  contextBufferRatio: number;
  /** Whether the agent has the `CompressContext` tool. */
  compressionToolEnabled: boolean;
}

/** What a task plugin tells others (`@agentkit/tasks` provides it; `@agentkit/injection` reads it). */
export interface TasksCapability {
  /** Counts unfinished tasks in `state`. */
  counts(state: AgentState): { pending: number; inProgress: number };
  /** Names of the task tools, whose calls show the agent knows its tasks. */
  toolNames: readonly string[];
}

/**
 * Typed capabilities plugins provide to each other through core (never by importing each other).
 * Third parties add theirs by declaration merging:
 * `declare module '@agentkit/core' { interface Capabilities { 'my-plugin.budget': Budget } }`.
 */
export interface Capabilities {
  compression: CompressionCapability;
  tasks: TasksCapability;
}
