import { type AgentState, type JSONObject, StateError } from '@agentkit/core';
import type { Task, TasksState } from './task';

/** The plugin's name, which is also the key of its state slot (`state.plugins['@agentkit/tasks']`). */
export const TASKS_PLUGIN_NAME = '@agentkit/tasks';

const STATUSES: ReadonlySet<string> = new Set(['pending', 'in_progress', 'completed']);

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isStringArray = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((x) => typeof x === 'string');

/** A fresh, empty task list. */
export function emptyTasksState(): TasksState {
  return { tasks: [] };
}

/**
 * Validates a loaded `@agentkit/tasks` slot and returns it. Throws {@link StateError} naming the bad path
 * when the slot is corrupt (so a broken state file fails when the agent is built, not mid-reply).
 */
export function parseTasksState(value: unknown): TasksState {
  const base = `plugins['${TASKS_PLUGIN_NAME}']`;
  const fail = (path: string, expected: string): never => {
    throw new StateError(`Invalid agent state: '${base}${path}' must be ${expected}.`);
  };
  if (!isObject(value)) return fail('', 'an object');
  if (!Array.isArray(value.tasks)) return fail('.tasks', 'an array of tasks');
  const ids = new Set<string>();
  for (const [i, task] of (value.tasks as unknown[]).entries()) {
    const at = `.tasks[${i}]`;
    if (!isObject(task)) return fail(at, 'a task object');
    if (typeof task.id !== 'string' || task.id === '') fail(`${at}.id`, 'a non-empty string');
    if (ids.has(task.id as string)) fail(`${at}.id`, `unique (duplicate id '${String(task.id)}')`);
    ids.add(task.id as string);
    if (typeof task.subject !== 'string') fail(`${at}.subject`, 'a string');
    if (typeof task.description !== 'string') fail(`${at}.description`, 'a string');
    if (typeof task.status !== 'string' || !STATUSES.has(task.status))
      fail(`${at}.status`, "'pending', 'in_progress' or 'completed'");
    if (task.owner !== null && typeof task.owner !== 'string') fail(`${at}.owner`, 'a string or null');
    if (!isStringArray(task.blocks)) fail(`${at}.blocks`, 'an array of task ids');
    if (!isStringArray(task.blockedBy)) fail(`${at}.blockedBy`, 'an array of task ids');
    if (!isObject(task.metadata)) fail(`${at}.metadata`, 'an object');
    if (typeof task.createdAt !== 'string') fail(`${at}.createdAt`, 'a string');
  }
  return value as unknown as TasksState;
}

/**
 * The task list in `state`, or an empty list when the slot is missing or unreadable. Never throws: other
 * plugins (runtime-state injection) call it on every model call.
 */
export function readTasks(state: AgentState): readonly Task[] {
  const slot = state.plugins[TASKS_PLUGIN_NAME];
  if (!isObject(slot) || !Array.isArray(slot.tasks)) return [];
  return (slot.tasks as unknown[]).filter(
    (t): t is Task => isObject(t) && typeof (t as JSONObject).status === 'string',
  );
}

/** Counts the unfinished tasks in `state` (what `@agentkit/injection` shows in `<tasks>`). */
export function countTasks(state: AgentState): { pending: number; inProgress: number } {
  let pending = 0;
  let inProgress = 0;
  for (const task of readTasks(state)) {
    if (task.status === 'pending') pending++;
    else if (task.status === 'in_progress') inProgress++;
  }
  return { pending, inProgress };
}
