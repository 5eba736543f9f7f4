// A plugin's model calls during a reply (`ctx.streamModel`) are model calls of the reply: streamed as
// MODEL_CALL_START/END naming the plugin, their usage in the reply message — so replaying the events
// rebuilds the message, whatever a compression did to the copy it kept.
import { describe, expect, it } from 'vitest';
import { Agent } from './agent';
import type { AgentEvent } from './events';
import type { Msg } from './msg';
import { definePlugin, type PluginContext } from './plugin';
import { replayEvents } from './replay-events';
import { ScriptedModel, textChunks, usageChunk } from './testing/scripted-model';

async function run(agent: Agent, input: string) {
  const events: AgentEvent[] = [];
  let msg: Msg | undefined;
  for await (const item of agent.replyStream(input, { yieldFinalMsg: true }))
    if ('type' in item) events.push(item);
    else msg = item;
  return { events, msg: msg! };
}

async function drain(ctx: PluginContext) {
  for await (const _ of ctx.streamModel({
    systemPrompt: 'summarise',
    messages: [],
    tools: [],
    toolChoice: 'auto',
  }));
}

describe("a plugin's model calls", () => {
  it('are streamed as model calls of the reply, and their usage is in the message', async () => {
    const model = new ScriptedModel([
      [...textChunks('side'), usageChunk({ inputTokens: 11, outputTokens: 5 })],
      [...textChunks('answer'), usageChunk({ inputTokens: 7, outputTokens: 3 })],
    ]);
    const side = definePlugin({ name: 'side', hooks: { beforeInference: ({ ctx }) => drain(ctx) } });
    const agent = new Agent({ name: 'a', model, plugins: [side] });
    const { events, msg } = await run(agent, 'go');
    const calls = events.filter((e) => e.type.startsWith('MODEL_CALL'));
    expect(calls).toMatchObject([
      { type: 'MODEL_CALL_START', plugin: 'side', modelName: 'scripted-model' },
      { type: 'MODEL_CALL_END', plugin: 'side', finishedReason: 'completed', usage: { outputTokens: 5 } },
      { type: 'MODEL_CALL_START' },
      { type: 'MODEL_CALL_END', usage: { outputTokens: 3 } },
    ]);
    expect(calls.slice(2).map((e) => 'plugin' in e)).toEqual([false, false]);
    expect(msg.usage).toMatchObject({ inputTokens: 18, outputTokens: 8 });
    expect(replayEvents(events)).toEqual(msg);
  });

  it("the reply's usage survives a replaced context that kept a copy (or nothing) of its message", async () => {
    for (const keep of ['copy', 'nothing'] as const) {
      const model = new ScriptedModel([
        [...textChunks('summary'), usageChunk({ inputTokens: 50, outputTokens: 100 })],
        [...textChunks('answer'), usageChunk({ inputTokens: 7, outputTokens: 3 })],
      ]);
      const compressor = definePlugin({
        name: 'compressor',
        hooks: {
          async beforeInference({ ctx }) {
            await drain(ctx);
            const reply = ctx.state.context.at(-1)!;
            // A compressor that kept a copy carrying a made-up usage: the kernel's own sum wins.
            const copy = { ...reply, usage: { ...reply.usage!, outputTokens: 999 } };
            ctx.replaceContext({ summary: 'earlier: a question', context: keep === 'copy' ? [copy] : [] });
          },
        },
      });
      const agent = new Agent({ name: 'a', model, plugins: [compressor] });
      const { events, msg } = await run(agent, 'go');
      expect(msg.usage, keep).toMatchObject({ inputTokens: 57, outputTokens: 103 });
      expect(agent.state.context.find((m) => m.id === msg.id)?.usage, keep).toEqual(msg.usage);
      expect(replayEvents(events), keep).toEqual(msg);
    }
  });

  it('made with a context kept past its run, they stream but change nothing of the ended reply', async () => {
    let kept: PluginContext | undefined;
    const model = new ScriptedModel([
      [...textChunks('answer'), usageChunk({ inputTokens: 7, outputTokens: 3 })],
      [...textChunks('late'), usageChunk({ inputTokens: 1, outputTokens: 1 })],
    ]);
    const keeper = definePlugin({
      name: 'keeper',
      hooks: {
        beforeInference: ({ ctx }) => {
          kept = ctx;
        },
      },
    });
    const agent = new Agent({ name: 'a', model, plugins: [keeper] });
    const msg = await agent.reply('go');
    const before = structuredClone(msg);
    await drain(kept!);
    expect(model.callCount).toBe(2);
    expect(msg).toEqual(before);
    expect(agent.state.context.at(-1)).toEqual(before);
  });

  it('a failed call records its usage so far with finishedReason error', async () => {
    const model = new ScriptedModel([
      { chunks: [usageChunk({ inputTokens: 4, outputTokens: 2 })], errorAfter: new Error('cut') },
      textChunks('answer'),
    ]);
    const failing = definePlugin({
      name: 'failing',
      hooks: {
        async beforeInference({ ctx }) {
          await drain(ctx).catch(() => {});
        },
      },
    });
    const { events, msg } = await run(new Agent({ name: 'a', model, plugins: [failing] }), 'go');
    expect(events.find((e) => e.type === 'MODEL_CALL_END')).toMatchObject({
      plugin: 'failing',
      finishedReason: 'error',
      usage: { inputTokens: 4, outputTokens: 2 },
    });
    expect(msg.usage).toMatchObject({ inputTokens: 4, outputTokens: 2 });
    expect(replayEvents(events)).toEqual(msg);
  });
});
