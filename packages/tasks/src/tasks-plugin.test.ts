import { Agent, type AgentEvent, StateError } from '@agentkit/core';
import { ScriptedModel, textChunks, toolCallChunk } from '@agentkit/core/testing';
import { describe, expect, it } from 'vitest';
import type { TasksState } from './task';
import { tasks } from './tasks-plugin';
import { TASKS_PLUGIN_NAME } from './tasks-state';

const slot = (agent: Agent) => agent.state.plugins[TASKS_PLUGIN_NAME] as unknown as TasksState;

describe('tasks plugin in an agent', () => {
  it('runs the tools against the state slot, in parallel calls too', async () => {
    const model = new ScriptedModel([
      [
        toolCallChunk('TaskCreate', { subject: 'Write', description: 'Write the report' }),
        toolCallChunk('TaskCreate', { subject: 'Review', description: 'Review it' }),
      ],
      [toolCallChunk('TaskUpdate', { task_id: '2', add_blocked_by: ['1'] }), toolCallChunk('TaskList', {})],
      [toolCallChunk('TaskUpdate', { task_id: '9', status: 'completed' })],
      textChunks('Done.'),
    ]);
    const agent = new Agent({ name: 'friday', model, plugins: [tasks()] });
    const events: AgentEvent[] = [];
    for await (const e of agent.replyStream('Plan the report.'))
      if (typeof e === 'object' && 'type' in e) events.push(e as AgentEvent);
    const ends = events.filter((e) => e.type === 'TOOL_RESULT_END');
    expect(ends.map((e) => (e as { state: string }).state)).toEqual([
      'success',
      'success',
      'success',
      'success',
      'error',
    ]);
    const reply = agent.state.context.at(-1)!;
    const texts = reply.content.flatMap((b) =>
      b.type === 'tool_result' ? [b.output.map((o) => (o.type === 'text' ? o.text : '')).join('')] : [],
    );
    expect(texts).toEqual([
      'Task (id=1) created successfully: Write',
      'Task (id=2) created successfully: Review',
      'Update task (id=2) add_blocked_by.',
      '1 [pending] Write\n2 [pending] Review [blocked by 1]',
      'TaskNotFoundError: The task (id=9) does not exist.',
    ]);
    expect(slot(agent).tasks.map((t) => [t.id, t.blocks, t.blockedBy])).toEqual([
      ['1', ['2'], []],
      ['2', [], ['1']],
    ]);
    expect(model.requests[0]!.tools.map((t) => t.name)).toEqual([
      'TaskCreate',
      'TaskGet',
      'TaskList',
      'TaskUpdate',
    ]);
  });

  it('keeps the task list across a reload of the state', async () => {
    const first = new Agent({
      name: 'friday',
      model: new ScriptedModel([
        [toolCallChunk('TaskCreate', { subject: 'A', description: 'a' })],
        textChunks('ok'),
      ]),
      plugins: [tasks()],
    });
    await first.reply('go');
    const model = new ScriptedModel([[toolCallChunk('TaskGet', { task_id: '1' })], textChunks('ok')]);
    const second = new Agent({
      name: 'friday',
      model,
      plugins: [tasks()],
      state: JSON.parse(JSON.stringify(first.state)),
    });
    await second.reply('again');
    const result = second.state.context.at(-1)!.content.find((b) => b.type === 'tool_result');
    expect(result).toMatchObject({
      state: 'success',
      output: [{ type: 'text', text: 'Task (id=1): A\nStatus: pending\nDescription: a' }],
    });
  });

  it('rejects a corrupt slot when the agent is built', () => {
    const state = JSON.parse(
      JSON.stringify(new Agent({ name: 'a', model: new ScriptedModel([]), plugins: [tasks()] }).state),
    );
    state.plugins[TASKS_PLUGIN_NAME] = { tasks: [{ id: 1 }] };
    expect(() => new Agent({ name: 'a', model: new ScriptedModel([]), plugins: [tasks()], state })).toThrow(
      StateError,
    );
  });

  it('provides the tasks capability: tool names and counts from the state', async () => {
    const model = new ScriptedModel([
      [
        toolCallChunk('TaskCreate', { subject: 'A', description: 'a' }),
        toolCallChunk('TaskCreate', { subject: 'B', description: 'b' }),
        toolCallChunk('TaskCreate', { subject: 'C', description: 'c' }),
      ],
      [
        toolCallChunk('TaskUpdate', { task_id: '1', status: 'in_progress' }),
        toolCallChunk('TaskUpdate', { task_id: '3', status: 'completed' }),
      ],
      textChunks('ok'),
    ]);
    const plugin = tasks();
    const agent = new Agent({ name: 'friday', model, plugins: [plugin] });
    const capability = plugin.provides!.tasks!;
    expect(capability.toolNames).toEqual(['TaskCreate', 'TaskGet', 'TaskList', 'TaskUpdate']);
    expect(capability.counts(agent.state)).toEqual({ pending: 0, inProgress: 0 });
    await agent.reply('go');
    expect(capability.counts(agent.state)).toEqual({ pending: 1, inProgress: 1 });
  });
});
