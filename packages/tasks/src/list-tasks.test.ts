import { describe, expect, it } from 'vitest';
import { createTask } from './create-task';
import { listTasks } from './list-tasks';
import { emptyTasksState } from './tasks-state';
import { updateTask } from './update-task';

describe('listTasks', () => {
  it('says so when there are no tasks', () => {
    expect(listTasks(emptyTasksState()).text).toBe('No tasks available.');
  });

  it('lists one line per task with owner and unfinished blockers', () => {
    let state = emptyTasksState();
    for (const s of ['Task 1', 'Task 2', 'Task 3'])
      state = createTask(state, { subject: s, description: s }).state;
    expect(listTasks(state).text).toBe('1 [pending] Task 1\n2 [pending] Task 2\n3 [pending] Task 3');
    state = updateTask(state, {
      task_id: '1',
      status: 'in_progress',
      owner: 'friday',
      add_blocks: ['2', '3'],
    }).state;
    state = updateTask(state, { task_id: '3', add_blocked_by: ['2'] }).state;
    expect(listTasks(state).text).toBe(
      '1 [in_progress] Task 1 (friday)\n2 [pending] Task 2 [blocked by 1]\n3 [pending] Task 3 [blocked by 1, 2]',
    );
  });
});
