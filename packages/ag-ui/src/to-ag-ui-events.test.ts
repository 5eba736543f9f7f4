import { Agent, definePlugin, getText, ModelError } from '@agentkit/core';
import { ScriptedModel, textChunks } from '@agentkit/core/testing';
import { readSse } from '@agentkit/server/testing';
import { type AGUIEvent, EventType } from '@ag-ui/core';
import { EventSchema } from '@ag-ui/core/schemas';
import { describe, expect, it } from 'vitest';
import { deployScript, deployTool, quiet } from '@agentkit/test-fixtures';
import { toAgUiEvents, toAgUiMessages, toAgUiResponse } from './index';

async function collect(events: AsyncIterable<AGUIEvent>): Promise<AGUIEvent[]> {
  const out: AGUIEvent[] = [];
  for await (const e of events) {
    const parsed = EventSchema.safeParse(e);
    expect(parsed.success, `${JSON.stringify(e)} ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
    out.push(e);
  }
  return out;
}

const ids = { threadId: 't1', runId: 'r1' };

describe('toAgUiEvents', () => {
  it('maps a reply to one AG-UI run whose messages are the saved reply', async () => {
    const agent = new Agent({
      name: 'ops',
      model: new ScriptedModel(deployScript()),
      tools: [deployTool([])],
    });
    const events = await collect(toAgUiEvents(agent.replyStream('Deploy billing.'), ids));
    expect(events.map((e) => e.type)).toEqual([
      EventType.RUN_STARTED,
      EventType.REASONING_START,
      EventType.REASONING_MESSAGE_START,
      EventType.REASONING_MESSAGE_CONTENT,
      EventType.REASONING_MESSAGE_END,
      EventType.REASONING_END,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
      EventType.TOOL_CALL_START,
      EventType.TOOL_CALL_ARGS,
      EventType.TOOL_CALL_END,
      EventType.TOOL_CALL_RESULT,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_CONTENT,
      EventType.TEXT_MESSAGE_END,
      EventType.RUN_FINISHED,
    ]);
    const reply = agent.state.context.at(-1)!;
    const text = events
      .filter((e) => e.type === EventType.TEXT_MESSAGE_CONTENT)
      .map((e) => (e as { delta: string }).delta)
      .join('');
    expect(text).toBe(getText(reply, ''));
    const start = events.find((e) => e.type === EventType.TOOL_CALL_START);
    const firstText = events.find((e) => e.type === EventType.TEXT_MESSAGE_START);
    expect(start).toMatchObject({
      toolCallName: 'deploy',
      parentMessageId: (firstText as { messageId: string }).messageId,
    });
    expect(toAgUiMessages([reply]).map((m) => m.id)).toEqual([
      (events[1] as { messageId: string }).messageId,
      (firstText as { messageId: string }).messageId,
      'call_deploy.result',
      (events[15] as { messageId: string }).messageId,
    ]);
  });

  it("maps a plugin's custom events to CUSTOM", async () => {
    const progress = definePlugin({
      name: 'progress',
      hooks: { beforeInference: ({ ctx }) => ctx.emit('progress', { step: 1 }) },
    });
    const agent = new Agent({
      name: 'ops',
      model: new ScriptedModel([textChunks('Done.')]),
      plugins: [progress],
    });
    const events = await collect(toAgUiEvents(agent.replyStream('Go.'), ids));
    expect(events).toContainEqual({ type: EventType.CUSTOM, name: 'progress', value: { step: 1 } });
  });

  it('leaves reasoning out when asked to', async () => {
    const agent = new Agent({
      name: 'ops',
      model: new ScriptedModel(deployScript()),
      tools: [deployTool([])],
    });
    const events = await collect(toAgUiEvents(agent.replyStream('Deploy.'), { ...ids, reasoning: false }));
    expect(events.some((e) => e.type.startsWith('REASONING'))).toBe(false);
  });

  it('ends a failed reply with RUN_ERROR and a stream that throws with a secret-free RUN_ERROR', async () => {
    const agent = new Agent({
      name: 'ops',
      model: new ScriptedModel([
        { error: new ModelError('invalid_request', 'The model rejected the request.') },
      ]),
      logger: quiet,
    });
    const failed = await collect(toAgUiEvents(agent.replyStream('Hi'), ids));
    expect(failed.at(-1)).toEqual({
      type: EventType.RUN_ERROR,
      message: 'The model rejected the request.',
      code: 'invalid_request',
    });

    async function* broken() {
      yield { type: 'TEXT_BLOCK_START', replyId: 'r', blockId: 'b1' } as const;
      throw new Error('secret-token-123');
    }
    const thrown = await collect(toAgUiEvents(broken(), ids));
    expect(thrown.map((e) => e.type)).toEqual([
      EventType.RUN_STARTED,
      EventType.TEXT_MESSAGE_START,
      EventType.TEXT_MESSAGE_END, // closed before the run ends
      EventType.RUN_ERROR,
    ]);
    expect(JSON.stringify(thrown)).not.toContain('secret');
  });

  it('ends an interrupted reply with RUN_FINISHED cancelled, closing what was open', async () => {
    const controller = new AbortController();
    const agent = new Agent({
      name: 'ops',
      model: new ScriptedModel([{ chunks: textChunks('one two three four five'), delayMs: 30 }]),
    });
    const events: AGUIEvent[] = [];
    for await (const e of toAgUiEvents(agent.replyStream('Count.', { signal: controller.signal }), ids)) {
      expect(EventSchema.safeParse(e).success).toBe(true);
      events.push(e);
      if (e.type === EventType.TEXT_MESSAGE_CONTENT) controller.abort();
    }
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'cancelled' } });
    expect(events.filter((e) => e.type === EventType.TEXT_MESSAGE_END)).toHaveLength(1);
  });

  it('streams as SSE for a route of your own', async () => {
    const agent = new Agent({ name: 'ops', model: new ScriptedModel([textChunks('Hello!')]) });
    const response = toAgUiResponse(agent.replyStream('Hi'), ids);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    const events = (await readSse<AGUIEvent>(response)).messages.map((m) => m.event);
    expect(events[0]).toMatchObject({ type: EventType.RUN_STARTED, threadId: 't1', runId: 'r1' });
    expect(events.at(-1)).toMatchObject({ type: EventType.RUN_FINISHED, outcome: { type: 'success' } });
  });
});
