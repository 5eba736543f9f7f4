import { describe, expect, it } from 'vitest';
import { createTask } from './create-task';
import type { TasksState } from './task';
import { emptyTasksState } from './tasks-state';
import { TASK_COMPLETED_REMINDER, updateTask } from './update-task';

function withTasks(n: number): TasksState {
  let state = emptyTasksState();
  for (let i = 1; i <= n; i++)
    state = createTask(state, { subject: `Task ${i}`, description: `Task ${i}` }).state;
  return state;
}

const edges = (state: TasksState) =>
  Object.fromEntries(state.tasks.map((t) => [t.id, { blocks: t.blocks, blockedBy: t.blockedBy }]));

describe('updateTask', () => {
  it('lists the updated fields in order', () => {
    const result = updateTask(withTasks(1), {
      task_id: '1',
      subject: 'New',
      description: 'Desc',
      status: 'in_progress',
      owner: 'friday',
      metadata: { a: 1 },
    });
    expect(result.text).toBe('Update task (id=1) subject, description, status, owner, metadata.');
    expect(result.state.tasks[0]).toMatchObject({
      subject: 'New',
      description: 'Desc',
      status: 'in_progress',
      owner: 'friday',
      metadata: { a: 1 },
    });
  });

  it('appends the completion reminder', () => {
    const result = updateTask(withTasks(1), { task_id: '1', status: 'completed' });
    expect(result.text).toBe(`Update task (id=1) status.\n\n${TASK_COMPLETED_REMINDER}`);
    expect(TASK_COMPLETED_REMINDER).toBe(
      'Task completed. Call TaskList now to find your next available task or see if your work unblocked others.',
    );
  });

  it('reports an unknown id as an error without changing anything', () => {
    const state = withTasks(1);
    const result = updateTask(state, { task_id: '9', status: 'completed' });
    expect(result).toEqual({
      text: 'TaskNotFoundError: The task (id=9) does not exist.',
      isError: true,
      state,
    });
  });

  it('keeps blocks and blockedBy symmetric from either side', () => {
    let state = updateTask(withTasks(3), { task_id: '1', add_blocks: ['2'] }).state;
    expect(edges(state)['1']).toEqual({ blocks: ['2'], blockedBy: [] });
    expect(edges(state)['2']).toEqual({ blocks: [], blockedBy: ['1'] });
    const result = updateTask(state, { task_id: '3', add_blocked_by: ['2'] });
    expect(result.text).toBe('Update task (id=3) add_blocked_by.');
    state = result.state;
    expect(edges(state)['2']).toEqual({ blocks: ['3'], blockedBy: ['1'] });
    expect(edges(state)['3']).toEqual({ blocks: [], blockedBy: ['2'] });
  });

  it('skips unknown ids, self edges, cycles and completed tasks', () => {
    let state = updateTask(withTasks(4), { task_id: '1', add_blocks: ['2'] }).state;
    state = updateTask(state, { task_id: '2', add_blocks: ['3'] }).state;
    const noUpdate = (id: string) =>
      `No updates were made to the task (id=${id}). Make sure you provided at least one field to update and the values are correct.`;
    expect(updateTask(state, { task_id: '1', add_blocks: ['1', '99'] }).text).toBe(noUpdate('1'));
    // 3 → 1 would close 1 → 2 → 3 → 1.
    expect(updateTask(state, { task_id: '3', add_blocks: ['1'] }).text).toBe(noUpdate('3'));
    expect(updateTask(state, { task_id: '1', add_blocked_by: ['3'] }).text).toBe(noUpdate('1'));
    state = updateTask(state, { task_id: '4', status: 'completed' }).state;
    expect(updateTask(state, { task_id: '1', add_blocks: ['4'] }).text).toBe(noUpdate('1'));
    // A task being completed in the same call takes no new edges.
    const completing = updateTask(state, { task_id: '3', status: 'completed', add_blocks: ['4'] });
    expect(completing.text).toBe(`Update task (id=3) status.\n\n${TASK_COMPLETED_REMINDER}`);
    expect(completing.state.tasks.find((t) => t.id === '3')!.blocks).toEqual([]);
  });

  it('a hostile id list (150k ids, a megabyte of arguments) against 3,000 tasks is handled in linear time', () => {
    // These tools run synchronously on the event loop: this took 4 s (two lists) with a scan per id.
    const state = withTasks(3000);
    const known = Array.from({ length: 150_000 }, (_, i) => String((i % 3000) + 2));
    const unknown = Array.from({ length: 150_000 }, (_, i) => `x${i}`);
    const started = performance.now();
    const result = updateTask(state, { task_id: '1', add_blocks: known, add_blocked_by: unknown });
    expect(performance.now() - started).toBeLessThan(1000);
    expect(result.text).toBe('Update task (id=1) add_blocks.');
    expect(result.state.tasks[0]!.blocks).toHaveLength(2999);
    expect(result.state.tasks[0]!.blockedBy).toEqual([]);
    expect(result.state.tasks[2999]!.blockedBy).toEqual(['1']);
  });

  it('deletes a task and scrubs its id from the others', () => {
    let state = updateTask(withTasks(3), { task_id: '2', add_blocked_by: ['1'], add_blocks: ['3'] }).state;
    const result = updateTask(state, { task_id: '2', status: 'deleted' });
    expect(result.text).toBe('Task (id=2) has been deleted.');
    state = result.state;
    expect(state.tasks.map((t) => t.id)).toEqual(['1', '3']);
    expect(edges(state)).toEqual({ '1': { blocks: [], blockedBy: [] }, '3': { blocks: [], blockedBy: [] } });
    // The next id still follows the largest remaining one.
    expect(createTask(state, { subject: 'D', description: 'd' }).text).toBe(
      'Task (id=4) created successfully: D',
    );
  });

  it('merges metadata and deletes keys set to null', () => {
    let state = createTask(emptyTasksState(), {
      subject: 'A',
      description: 'a',
      metadata: { p: 'low', tags: ['t'] },
    }).state;
    state = updateTask(state, { task_id: '1', metadata: { p: 'high', tags: null, n: 'v' } }).state;
    expect(state.tasks[0]!.metadata).toEqual({ p: 'high', n: 'v' });
  });

  it('ignores null and empty fields, and leaves the input state untouched', () => {
    const state = withTasks(1);
    const before = structuredClone(state);
    const result = updateTask(state, { task_id: '1', subject: '', owner: null, status: null, metadata: {} });
    expect(result.text).toContain('No updates were made to the task (id=1).');
    expect(result.state).toBe(state);
    updateTask(state, { task_id: '1', subject: 'X', add_blocks: [] });
    expect(state).toEqual(before);
  });
});
