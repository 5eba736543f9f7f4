import type { JSONObject } from '@agentkit/core';
import type { Task, TasksState } from './task';
import type { TaskOpResult } from './task-op-result';

/** The input of `TaskCreate`. */
export interface TaskCreateInput {
  subject: string;
  description: string;
  metadata?: JSONObject | null | undefined;
}

/** The next task id: one more than the largest numeric id (non-numeric ids are ignored), `'1'` at first. */
export function nextTaskId(tasks: readonly Task[]): string {
  let max = 0;
  for (const task of tasks) if (/^\d+$/.test(task.id)) max = Math.max(max, Number(task.id));
  return String(max + 1);
}

/** Adds a `pending` task. Returns `Task (id=N) created successfully: {subject}`. */
export function createTask(state: TasksState, input: TaskCreateInput, now: Date = new Date()): TaskOpResult {
  const task: Task = {
    id: nextTaskId(state.tasks),
    subject: input.subject,
    description: input.description,
    status: 'pending',
    owner: null,
    blocks: [],
    blockedBy: [],
    metadata: structuredClone(input.metadata ?? {}),
    createdAt: now.toISOString(),
  };
  return {
    text: `Task (id=${task.id}) created successfully: ${task.subject}`,
    isError: false,
    state: { ...state, tasks: [...state.tasks, task] },
  };
}
