export type { Task, TasksState, TaskStatus } from './task';
export type { TaskOpResult } from './task-op-result';
export { createTask, nextTaskId, type TaskCreateInput } from './create-task';
export { getTask } from './get-task';
export { listTasks } from './list-tasks';
export { TASK_COMPLETED_REMINDER, updateTask, type TaskUpdateInput } from './update-task';
export {
  TASK_TOOL_NAMES,
  taskCreateTool,
  taskGetTool,
  taskListTool,
  taskTools,
  taskUpdateTool,
} from './task-tools';
export { countTasks, emptyTasksState, parseTasksState, readTasks, TASKS_PLUGIN_NAME } from './tasks-state';
export { tasks, tasksCapability } from './tasks-plugin';
