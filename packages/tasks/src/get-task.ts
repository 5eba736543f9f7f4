import type { Task, TasksState } from './task';
import type { TaskOpResult } from './task-op-result';

/** Ids in `task.blockedBy` whose task still exists and is not completed. */
export function activeBlockers(task: Task, tasks: readonly Task[]): string[] {
  return task.blockedBy.filter((id) => tasks.some((t) => t.id === id && t.status !== 'completed'));
}

/**
 * Describes one task on several lines: `Task (id=…): subject`, `Status: …`, `Description: …`, then, when
 * set, `Owner: …`, `Blocked by: #…` (unfinished blockers), `Blocks: #…` and `Metadata: {json}`.
 * An unknown id gives `Task not found` as an error.
 */
export function getTask(state: TasksState, taskId: string): TaskOpResult {
  const task = state.tasks.find((t) => t.id === taskId);
  if (!task) return { text: 'Task not found', isError: true, state };
  const lines = [
    `Task (id=${task.id}): ${task.subject}`,
    `Status: ${task.status}`,
    `Description: ${task.description}`,
  ];
  if (task.owner) lines.push(`Owner: ${task.owner}`);
  const blockers = activeBlockers(task, state.tasks);
  if (blockers.length > 0) lines.push(`Blocked by: ${blockers.map((id) => `#${id}`).join(', ')}`);
  if (task.blocks.length > 0) lines.push(`Blocks: ${task.blocks.map((id) => `#${id}`).join(', ')}`);
  if (Object.keys(task.metadata).length > 0) lines.push(`Metadata: ${JSON.stringify(task.metadata)}`);
  return { text: lines.join('\n'), isError: false, state };
}
