import { createAgentState, StateError } from '@agentkit/core';
import { describe, expect, it } from 'vitest';
import { createTask } from './create-task';
import { countTasks, emptyTasksState, parseTasksState, readTasks, TASKS_PLUGIN_NAME } from './tasks-state';
import { updateTask } from './update-task';

describe('parseTasksState', () => {
  it('accepts a valid slot', () => {
    const { state } = createTask(emptyTasksState(), { subject: 'A', description: 'a' });
    const loaded = JSON.parse(JSON.stringify(state));
    expect(parseTasksState(loaded)).toEqual(state);
  });

  it('names the bad path of a corrupt slot', () => {
    expect(() => parseTasksState(null)).toThrow(StateError);
    expect(() => parseTasksState({})).toThrow("'plugins['@agentkit/tasks'].tasks' must be an array of tasks");
    const { state } = createTask(emptyTasksState(), { subject: 'A', description: 'a' });
    const bad = JSON.parse(JSON.stringify(state));
    bad.tasks[0].status = 'done';
    expect(() => parseTasksState(bad)).toThrow("'plugins['@agentkit/tasks'].tasks[0].status' must be");
    const dup = { tasks: [state.tasks[0], state.tasks[0]] };
    expect(() => parseTasksState(dup)).toThrow('duplicate id');
  });
});

describe('countTasks', () => {
  it('counts pending and in-progress tasks in an agent state', () => {
    let slot = emptyTasksState();
    for (const s of ['A', 'B', 'C', 'D']) slot = createTask(slot, { subject: s, description: s }).state;
    slot = updateTask(slot, { task_id: '1', status: 'in_progress' }).state;
    slot = updateTask(slot, { task_id: '2', status: 'completed' }).state;
    const state = createAgentState();
    state.plugins[TASKS_PLUGIN_NAME] = slot as never;
    expect(countTasks(state)).toEqual({ pending: 2, inProgress: 1 });
  });

  it('is zero without the slot or with a broken one, and never throws', () => {
    const state = createAgentState();
    expect(countTasks(state)).toEqual({ pending: 0, inProgress: 0 });
    state.plugins[TASKS_PLUGIN_NAME] = 'garbage';
    expect(readTasks(state)).toEqual([]);
    state.plugins[TASKS_PLUGIN_NAME] = { tasks: [null, 3, { status: 'pending' }] };
    expect(countTasks(state)).toEqual({ pending: 1, inProgress: 0 });
  });
});
