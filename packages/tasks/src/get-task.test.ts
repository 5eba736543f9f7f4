import { describe, expect, it } from 'vitest';
import { createTask } from './create-task';
import { getTask } from './get-task';
import { emptyTasksState } from './tasks-state';
import { updateTask } from './update-task';

describe('getTask', () => {
  it('describes a task with metadata', () => {
    const { state } = createTask(emptyTasksState(), {
      subject: 'Test Task',
      description: 'This is a test task with details',
      metadata: { priority: 'high' },
    });
    expect(getTask(state, '1')).toEqual({
      text: 'Task (id=1): Test Task\nStatus: pending\nDescription: This is a test task with details\nMetadata: {"priority":"high"}',
      isError: false,
      state,
    });
  });

  it('shows owner, unfinished blockers and blocked tasks', () => {
    let state = emptyTasksState();
    for (const s of ['A', 'B', 'C']) state = createTask(state, { subject: s, description: s }).state;
    state = updateTask(state, {
      task_id: '2',
      add_blocked_by: ['1', '3'],
      add_blocks: [],
      owner: 'friday',
    }).state;
    expect(getTask(state, '2').text).toBe(
      'Task (id=2): B\nStatus: pending\nDescription: B\nOwner: friday\nBlocked by: #1, #3',
    );
    expect(getTask(state, '1').text).toBe('Task (id=1): A\nStatus: pending\nDescription: A\nBlocks: #2');
    state = updateTask(state, { task_id: '1', status: 'completed' }).state;
    expect(getTask(state, '2').text).toContain('Blocked by: #3');
    expect(getTask(state, '2').text).not.toContain('#1');
  });

  it('reports an unknown id as an error', () => {
    expect(getTask(emptyTasksState(), 'nonexistent-id')).toMatchObject({
      text: 'Task not found',
      isError: true,
    });
  });
});
