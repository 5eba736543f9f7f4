import type { JSONValue } from '@agentkit/core';
import type { Task, TasksState, TaskStatus } from './task';
import type { TaskOpResult } from './task-op-result';

/** The input of `TaskUpdate` (snake_case, as the model writes it). */
export interface TaskUpdateInput {
  task_id: string;
  subject?: string | null | undefined;
  description?: string | null | undefined;
  /** `deleted` removes the task and scrubs its id from every other task. */
  status?: TaskStatus | 'deleted' | null | undefined;
  /** Tasks that cannot start until this one completes. */
  add_blocks?: string[] | null | undefined;
  /** Tasks that must complete before this one can start. */
  add_blocked_by?: string[] | null | undefined;
  owner?: string | null | undefined;
  /** Keys merged into the task's metadata; a `null` value deletes the key. */
  metadata?: { [key: string]: JSONValue } | null | undefined;
}

/** Text appended to an update that leaves the task completed. */
export const TASK_COMPLETED_REMINDER =
  'Task completed. Call TaskList now to find your next available task or see if your work unblocked others.';

/**
 * Whether `blocker → blocked` may be added: not a self edge, neither task completed, and no cycle
 * (the blocker must not already be reachable from the blocked task through unfinished tasks' `blocks`).
 */
function isValidEdge(byId: ReadonlyMap<string, Task>, blocker: string, blocked: string): boolean {
  if (blocker === blocked) return false;
  if (byId.get(blocker)?.status === 'completed' || byId.get(blocked)?.status === 'completed') return false;
  const seen = new Set<string>();
  const stack = [blocked];
  while (stack.length > 0) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    const task = byId.get(id);
    if (!task || task.status === 'completed') continue;
    for (const next of task.blocks) {
      if (next === blocker) return false;
      stack.push(next);
    }
  }
  return true;
}

/** Adds `blocker → blocked` on both sides, so `blocks` and `blockedBy` stay mirror images. */
function link(byId: ReadonlyMap<string, Task>, blocker: string, blocked: string): void {
  const from = byId.get(blocker);
  const to = byId.get(blocked);
  if (from && !from.blocks.includes(blocked)) from.blocks.push(blocked);
  if (to && !to.blockedBy.includes(blocker)) to.blockedBy.push(blocker);
}

/**
 * Updates a task. Returns `Update task (id=N) field, field.` listing what changed (plus the completion
 * reminder when the task is completed), `Task (id=N) has been deleted.` for `deleted`, or
 * `TaskNotFoundError: The task (id=N) does not exist.` as an error. Blocking edges to unknown ids,
 * to completed tasks, to itself or that would close a cycle are skipped. `null` fields are ignored.
 */
export function updateTask(state: TasksState, input: TaskUpdateInput): TaskOpResult {
  const id = input.task_id;
  if (!state.tasks.some((t) => t.id === id))
    return { text: `TaskNotFoundError: The task (id=${id}) does not exist.`, isError: true, state };

  const tasks = structuredClone(state.tasks);
  const task = tasks.find((t) => t.id === id)!;
  const updated: string[] = [];

  if (input.subject) {
    task.subject = input.subject;
    updated.push('subject');
  }
  if (input.description != null) {
    task.description = input.description;
    updated.push('description');
  }
  const completing = input.status === 'completed';
  // Lookups by id and each id once: a model may send a list of a million ids against thousands of tasks,
  // and these tools run synchronously on the event loop.
  const byId = new Map(tasks.map((t) => [t.id, t]));
  if (input.add_blocks) {
    let applied = false;
    for (const other of new Set(input.add_blocks)) {
      if (task.blocks.includes(other) || !byId.has(other) || completing) continue;
      if (!isValidEdge(byId, id, other)) continue;
      link(byId, id, other);
      applied = true;
    }
    if (applied) updated.push('add_blocks');
  }
  if (input.add_blocked_by) {
    let applied = false;
    for (const other of new Set(input.add_blocked_by)) {
      if (task.blockedBy.includes(other) || !byId.has(other) || completing) continue;
      if (!isValidEdge(byId, other, id)) continue;
      link(byId, other, id);
      applied = true;
    }
    if (applied) updated.push('add_blocked_by');
  }
  if (input.status === 'deleted') {
    const rest = tasks.filter((t) => t.id !== id);
    for (const t of rest) {
      t.blocks = t.blocks.filter((x) => x !== id);
      t.blockedBy = t.blockedBy.filter((x) => x !== id);
    }
    return { text: `Task (id=${id}) has been deleted.`, isError: false, state: { ...state, tasks: rest } };
  }
  if (input.status) {
    task.status = input.status;
    updated.push('status');
  }
  if (input.owner != null) {
    task.owner = input.owner;
    updated.push('owner');
  }
  if (input.metadata && Object.keys(input.metadata).length > 0) {
    for (const [key, value] of Object.entries(input.metadata)) {
      if (value === null) delete task.metadata[key];
      else task.metadata[key] = structuredClone(value);
    }
    updated.push('metadata');
  }

  let text =
    updated.length > 0
      ? `Update task (id=${id}) ${updated.join(', ')}.`
      : `No updates were made to the task (id=${id}). Make sure you provided at least one field to update and the values are correct.`;
  if (task.status === 'completed') text += `\n\n${TASK_COMPLETED_REMINDER}`;
  return { text, isError: false, state: updated.length > 0 ? { ...state, tasks } : state };
}
