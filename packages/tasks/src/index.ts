// The public surface: the factory, the state slot's name and types, and a safe reader of that slot.
// The tools and the task operations behind them are internal.
export { tasks } from './tasks-plugin';
export { readTasks, TASKS_PLUGIN_NAME } from './tasks-state';
export type { Task, TasksState, TaskStatus } from './task';
