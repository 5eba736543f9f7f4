import { definePlugin, type Plugin, type TasksCapability } from '@agentkit/core';
import type { TasksState } from './task';
import { TASK_TOOL_NAMES, taskTools } from './task-tools';
import { countTasks, emptyTasksState, parseTasksState, TASKS_PLUGIN_NAME } from './tasks-state';

/** The `tasks` capability this plugin provides (read by `@agentkit/injection` for its `<tasks>` reminder). */
export const tasksCapability: TasksCapability = {
  counts: countTasks,
  toolNames: TASK_TOOL_NAMES,
};

/**
 * The task plugin: mounts `TaskCreate`, `TaskGet`, `TaskList` and `TaskUpdate`, keeps the task list in
 * its state slot (`state.plugins['@agentkit/tasks']`, validated when a state is loaded) and provides the
 * `tasks` capability. The tools are concurrency-safe and never ask for confirmation (explicit deny or
 * ask rules in the agent's permissions still apply).
 * @example
 * const agent = new Agent({ name: 'planner', model, plugins: [tasks()] });
 */
export function tasks(): Plugin<TasksState> {
  return definePlugin<TasksState>({
    name: TASKS_PLUGIN_NAME,
    state: { initial: emptyTasksState, schema: parseTasksState },
    tools: taskTools,
    provides: { tasks: tasksCapability },
  });
}
