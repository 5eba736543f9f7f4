import { activeBlockers } from './get-task';
import type { TasksState } from './task';
import type { TaskOpResult } from './task-op-result';

/**
 * One line per task: `{id} [{status}] {subject}`, then ` ({owner})` when owned and
 * ` [blocked by a, b]` when unfinished tasks block it. An empty list gives `No tasks available.`
 */
export function listTasks(state: TasksState): TaskOpResult {
  if (state.tasks.length === 0) return { text: 'No tasks available.', isError: false, state };
  const lines = state.tasks.map((task) => {
    const owner = task.owner ? ` (${task.owner})` : '';
    const blockers = activeBlockers(task, state.tasks);
    const blocked = blockers.length > 0 ? ` [blocked by ${blockers.join(', ')}]` : '';
    return `${task.id} [${task.status}] ${task.subject}${owner}${blocked}`;
  });
  return { text: lines.join('\n'), isError: false, state };
}
