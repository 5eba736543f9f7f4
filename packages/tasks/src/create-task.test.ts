import { describe, expect, it } from 'vitest';
import { createTask, nextTaskId } from './create-task';
import { emptyTasksState } from './tasks-state';

describe('createTask', () => {
  it('adds a pending task with id 1 and reports it', () => {
    const now = new Date('2026-07-01T12:00:00Z');
    const result = createTask(
      emptyTasksState(),
      { subject: 'Test Task 1', description: 'This is a test task' },
      now,
    );
    expect(result.text).toBe('Task (id=1) created successfully: Test Task 1');
    expect(result.isError).toBe(false);
    expect(result.state.tasks).toEqual([
      {
        id: '1',
        subject: 'Test Task 1',
        description: 'This is a test task',
        status: 'pending',
        owner: null,
        blocks: [],
        blockedBy: [],
        metadata: {},
        createdAt: '2026-07-01T12:00:00.000Z',
      },
    ]);
  });

  it('numbers tasks consecutively and keeps metadata', () => {
    let state = emptyTasksState();
    state = createTask(state, { subject: 'A', description: 'a' }).state;
    state = createTask(state, { subject: 'B', description: 'b' }).state;
    const third = createTask(state, {
      subject: 'C',
      description: 'c',
      metadata: { priority: 'high', tags: ['x'] },
    });
    expect(third.text).toBe('Task (id=3) created successfully: C');
    expect(third.state.tasks.map((t) => t.id)).toEqual(['1', '2', '3']);
    expect(third.state.tasks[2]!.metadata).toEqual({ priority: 'high', tags: ['x'] });
  });

  it('does not mutate the input state', () => {
    const state = emptyTasksState();
    createTask(state, { subject: 'A', description: 'a' });
    expect(state.tasks).toEqual([]);
  });
});

describe('nextTaskId', () => {
  it('is the largest numeric id plus one, ignoring non-numeric ids', () => {
    const task = (id: string) => ({ id }) as never;
    expect(nextTaskId([])).toBe('1');
    expect(nextTaskId([task('2'), task('abc'), task('10'), task('7')])).toBe('11');
    expect(nextTaskId([task('x1')])).toBe('1');
  });
});
