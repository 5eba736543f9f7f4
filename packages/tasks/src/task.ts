import type { JSONObject } from '@agentkit/core';

/** Where a task stands. Deleting a task removes it instead of giving it a state. */
export type TaskStatus = 'pending' | 'in_progress' | 'completed';

/** One task of the agent's task list, as stored in the `@agentkit/tasks` state slot. */
export interface Task {
  /** A numeric string: one more than the largest numeric id in the list (`'1'` for the first task). */
  id: string;
  /** A brief, imperative title. */
  subject: string;
  /** What needs to be done. */
  description: string;
  status: TaskStatus;
  /** The agent (or person) working on it, or `null`. */
  owner: string | null;
  /** Ids of the tasks that cannot start until this one completes. Mirrors their `blockedBy`. */
  blocks: string[];
  /** Ids of the tasks that must complete before this one can start. Mirrors their `blocks`. */
  blockedBy: string[];
  metadata: JSONObject;
  /** ISO 8601 creation time. */
  createdAt: string;
}

/** The `@agentkit/tasks` state slot: the task list, in creation order. */
export interface TasksState {
  tasks: Task[];
}
