import {
  type AgentState,
  createAgentState,
  type PluginContext,
  type PluginToolContext,
  type ToolResult,
} from '@agentkit/core';
import { describe, expect, it } from 'vitest';
import type { TasksState } from './task';
import { taskCreateTool, taskGetTool, taskListTool, taskTools, taskUpdateTool } from './task-tools';
import { emptyTasksState, TASKS_PLUGIN_NAME } from './tasks-state';

/** The context the tools get in an agent, reduced to what they use: the plugin's slot in `state`. */
function toolContext(state: AgentState): PluginToolContext<TasksState> {
  const plugin: Pick<PluginContext<TasksState>, 'getState' | 'setState'> = {
    // An agent creates the slot from the plugin's `initial` when it is built.
    getState: () =>
      (state.plugins[TASKS_PLUGIN_NAME] as unknown as TasksState | undefined) ?? emptyTasksState(),
    setState: (value) => {
      state.plugins[TASKS_PLUGIN_NAME] = structuredClone(value) as never;
    },
  };
  return {
    plugin: plugin as PluginContext<TasksState>,
    signal: new AbortController().signal,
    toolCallId: 'call-1',
    replyId: 'reply-1',
    state,
    getPluginState: <T>(plugin: string) => state.plugins[plugin] as T,
    setPluginState: (plugin, value) => {
      state.plugins[plugin] = structuredClone(value) as never;
    },
    finishReply: () => {},
  };
}

describe('task tools', () => {
  it('work on the plugin slot, starting from no slot', async () => {
    const state = createAgentState();
    const ctx = toolContext(state);
    expect(await taskListTool.execute!({}, ctx)).toBe('No tasks available.');
    expect(await taskCreateTool.execute!({ subject: 'Write', description: 'Write it' }, ctx)).toBe(
      'Task (id=1) created successfully: Write',
    );
    expect(await taskUpdateTool.execute!({ task_id: '1', status: 'in_progress' }, ctx)).toBe(
      'Update task (id=1) status.',
    );
    expect(await taskListTool.execute!({}, ctx)).toBe('1 [in_progress] Write');
    expect(await taskGetTool.execute!({ task_id: '1' }, ctx)).toBe(
      'Task (id=1): Write\nStatus: in_progress\nDescription: Write it',
    );
    expect((state.plugins[TASKS_PLUGIN_NAME] as unknown as TasksState).tasks).toHaveLength(1);
    expect(JSON.parse(JSON.stringify(state))).toEqual(state);
  });

  it('return error results for unknown ids and leave the slot alone', async () => {
    const state = createAgentState();
    const ctx = toolContext(state);
    const get = (await taskGetTool.execute!({ task_id: '7' }, ctx)) as ToolResult;
    expect(get).toEqual({ output: 'Task not found', state: 'error' });
    const update = (await taskUpdateTool.execute!({ task_id: '7', status: 'completed' }, ctx)) as ToolResult;
    expect(update).toEqual({ output: 'TaskNotFoundError: The task (id=7) does not exist.', state: 'error' });
    expect(state.plugins[TASKS_PLUGIN_NAME]).toBeUndefined();
  });

  it('do not lose updates when calls run concurrently', async () => {
    const state = createAgentState();
    const ctx = toolContext(state);
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        Promise.resolve().then(() => taskCreateTool.execute!({ subject: `T${i}`, description: '' }, ctx)),
      ),
    );
    const ids = (state.plugins[TASKS_PLUGIN_NAME] as unknown as TasksState).tasks.map((t) => t.id);
    expect(ids).toEqual(['1', '2', '3', '4', '5', '6', '7', '8', '9', '10']);
  });

  it('are concurrency-safe, need no confirmation and use plain JSON Schema', () => {
    expect(taskTools.map((t) => t.name)).toEqual(['TaskCreate', 'TaskGet', 'TaskList', 'TaskUpdate']);
    for (const tool of taskTools) {
      expect(tool.concurrencySafe).toBe(true);
      expect(tool.needsConfirmation).toBeFalsy();
      expect(tool.inputSchema).toMatchObject({ type: 'object', additionalProperties: false });
    }
    expect(taskUpdateTool.inputSchema).toMatchObject({ required: ['task_id'] });
  });
});
