import {
  defineTool,
  type JSONSchema,
  type PluginTool,
  type PluginToolContext,
  type ToolResult,
} from '@agentkit/core';
import { createTask, type TaskCreateInput } from './create-task';
import { getTask } from './get-task';
import { listTasks } from './list-tasks';
import type { TasksState } from './task';
import type { TaskOpResult } from './task-op-result';
import { type TaskUpdateInput, updateTask } from './update-task';

/** What the task tools get: the task plugin's context, whose state slot is the task list. */
type TasksToolContext = PluginToolContext<TasksState>;

/** Names of the four task tools, in the order they are mounted. */
export const TASK_TOOL_NAMES = ['TaskCreate', 'TaskGet', 'TaskList', 'TaskUpdate'] as const;

/**
 * Runs one operation against the plugin's slot: read, compute, write back, all in one synchronous step,
 * so concurrent calls in one model response never lose each other's updates.
 */
function applyOp(ctx: TasksToolContext, op: (state: TasksState) => TaskOpResult): string | ToolResult {
  const current = ctx.plugin.getState();
  const result = op(current);
  if (result.state !== current) ctx.plugin.setState(result.state);
  return result.isError ? { output: result.text, state: 'error' } : result.text;
}

const nullable = (schema: JSONSchema): JSONSchema => ({ ...schema, type: [schema.type as string, 'null'] });

const taskCreateSchema: JSONSchema = {
  type: 'object',
  properties: {
    subject: { type: 'string', description: 'A brief title for the task' },
    description: { type: 'string', description: 'What needs to be done' },
    metadata: nullable({ type: 'object', description: 'Arbitrary metadata to attach to the task' }),
  },
  required: ['subject', 'description'],
  additionalProperties: false,
};

const taskIdSchema: JSONSchema = {
  type: 'object',
  properties: { task_id: { type: 'string', description: 'The ID of the task to retrieve' } },
  required: ['task_id'],
  additionalProperties: false,
};

const idList = (description: string): JSONSchema => ({
  type: ['array', 'null'],
  items: { type: 'string' },
  description,
});

const taskUpdateSchema: JSONSchema = {
  type: 'object',
  properties: {
    task_id: { type: 'string', description: 'The task id.' },
    subject: nullable({ type: 'string', description: 'New subject for the task' }),
    description: nullable({ type: 'string', description: 'New description for the task' }),
    status: {
      type: ['string', 'null'],
      enum: ['pending', 'in_progress', 'completed', 'deleted', null],
      description: 'New status for the task',
    },
    add_blocks: idList('Task IDs that this task blocks'),
    add_blocked_by: idList('Task IDs that block this task'),
    owner: nullable({ type: 'string', description: 'New owner for the task' }),
    metadata: nullable({
      type: 'object',
      description: 'Metadata keys to merge into the task. Set a key to null to delete it.',
    }),
  },
  required: ['task_id'],
  additionalProperties: false,
};

/** `TaskCreate{subject, description, metadata?}`: adds a pending task with the next numeric id. */
export const taskCreateTool: PluginTool<TaskCreateInput, TasksState> = defineTool<
  TaskCreateInput,
  TasksToolContext
>({
  name: 'TaskCreate',
  description: [
    'Create a task in your task list to track multi-step work and show the user your progress.',
    '',
    'Use it for work with three or more distinct steps, when the user gives several things to do, or to capture new',
    'requirements right away. Skip it for a single trivial step or a purely conversational request.',
    '',
    '- subject: a brief, actionable title in imperative form (e.g. "Fix the login bug")',
    '- description: what needs to be done',
    '',
    'Tasks start as `pending`. Mark a task `in_progress` with TaskUpdate before you start it and `completed` when it',
    'is fully done. Use TaskUpdate to set up dependencies, and check TaskList first to avoid duplicates.',
  ].join('\n'),
  inputSchema: taskCreateSchema,
  concurrencySafe: true,
  idempotent: true, // changes only the task list in the state: a recovered reply may run it again
  execute: (input, ctx) => applyOp(ctx, (state) => createTask(state, input)),
});

/** `TaskGet{task_id}`: the full details of one task. */
export const taskGetTool: PluginTool<{ task_id: string }, TasksState> = defineTool<
  { task_id: string },
  TasksToolContext
>({
  name: 'TaskGet',
  description: [
    'Retrieve a task by its ID from the task list: subject, description, status, owner, the tasks it blocks and the',
    'unfinished tasks blocking it.',
    '',
    'Use it before starting work on a task to get its full requirements, and check that nothing blocks it.',
    'Use TaskList to see all tasks in summary form.',
  ].join('\n'),
  inputSchema: taskIdSchema,
  concurrencySafe: true,
  idempotent: true, // changes only the task list in the state: a recovered reply may run it again
  execute: (input, ctx) => applyOp(ctx, (state) => getTask(state, input.task_id)),
});

/** `TaskList{}`: one summary line per task. */
export const taskListTool: PluginTool<Record<string, never>, TasksState> = defineTool<
  Record<string, never>,
  TasksToolContext
>({
  name: 'TaskList',
  description: [
    'List all tasks in the task list, one line each: `{id} [{status}] {subject}`, the owner in parentheses when',
    'set, and `[blocked by …]` when unfinished tasks block it.',
    '',
    'Use it to see what is available (pending, no owner, not blocked), to check overall progress, and after',
    'completing a task to find the next one. Prefer working in ID order (lowest first).',
  ].join('\n'),
  inputSchema: { type: 'object', properties: {}, additionalProperties: false },
  concurrencySafe: true,
  idempotent: true, // changes only the task list in the state: a recovered reply may run it again
  execute: (_input, ctx) => applyOp(ctx, (state) => listTasks(state)),
});

/** `TaskUpdate{task_id, …}`: changes fields, status, owner, metadata and dependencies, or deletes a task. */
export const taskUpdateTool: PluginTool<TaskUpdateInput, TasksState> = defineTool<
  TaskUpdateInput,
  TasksToolContext
>({
  name: 'TaskUpdate',
  description: [
    'Update a task in the task list.',
    '',
    '- status: `pending` → `in_progress` → `completed`; `deleted` removes the task permanently',
    '- subject, description, owner: replace the value',
    '- metadata: keys merged into the task (a null value deletes the key)',
    '- add_blocks: tasks that cannot start until this one completes',
    '- add_blocked_by: tasks that must complete before this one can start',
    '',
    'Mark a task `completed` only when it is fully done (tests pass, nothing partial); if you are blocked, keep it',
    '`in_progress` and create a task for what blocks you. A task cannot block itself, dependencies cannot form a',
    'cycle, and completed tasks cannot enter new dependencies. After completing a task, call TaskList.',
    '',
    'Example: {"task_id": "1", "status": "in_progress"}',
  ].join('\n'),
  inputSchema: taskUpdateSchema,
  concurrencySafe: true,
  idempotent: true, // changes only the task list in the state: a recovered reply may run it again
  execute: (input, ctx) => applyOp(ctx, (state) => updateTask(state, input)),
});

/** The four task tools. */
export const taskTools: readonly PluginTool<any, TasksState>[] = [
  taskCreateTool,
  taskGetTool,
  taskListTool,
  taskUpdateTool,
];
