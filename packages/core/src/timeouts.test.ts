// A hung tool or provider must not need the caller's own AbortSignal: per-tool `timeoutMs` and the
// reply's `timeoutMs` deadline.
import { describe, expect, it } from 'vitest';
import { Agent } from './agent';
import type { ToolResultBlock } from './blocks';
import { defineTool } from './define-tool';
import { ConfigError } from './errors/config-error';
import { InvalidInputError } from './errors/input-errors';
import { ReplyTimeoutError } from './errors/reply-timeout-error';
import type { AgentEvent } from './events';
import type { ChatModel, ModelChunk, ModelRequest } from './model';
import { getText, type Msg } from './msg';
import { replayEvents } from './replay-events';
import { ScriptedModel, textChunks, toolCallChunk } from './testing/scripted-model';

const quiet = { warn() {}, error() {} };
const resultsOf = (msg: Msg) => msg.content.filter((b): b is ToolResultBlock => b.type === 'tool_result');
const resultText = (r: ToolResultBlock) => r.output.map((b) => (b.type === 'text' ? b.text : '')).join('');
/** Never settles: a tool or a provider that hangs and ignores every signal. */
const forever = () => new Promise<never>(() => {});

async function collect(agent: Agent, input: string, options: { timeoutMs?: number } = {}) {
  const events: AgentEvent[] = [];
  let msg: Msg | undefined;
  for await (const item of agent.replyStream(input, { ...options, yieldFinalMsg: true }))
    if ('type' in item) events.push(item);
    else msg = item;
  return { events, msg: msg! };
}

describe("a tool's timeoutMs", () => {
  it('stops a hung call with a timeout error result the model sees; the reply goes on', async () => {
    let seen: AbortSignal | undefined;
    const hang = defineTool({
      name: 'hang',
      description: 'hangs',
      inputSchema: { type: 'object' },
      timeoutMs: 50,
      execute: (_input, ctx) => {
        seen = ctx.signal;
        return forever();
      },
    });
    const stream = defineTool({
      name: 'drip',
      description: 'streams, then hangs',
      inputSchema: { type: 'object' },
      timeoutMs: 50,
      async *execute() {
        yield 'first part';
        await forever();
      },
    });
    const model = new ScriptedModel([
      [toolCallChunk('hang', {}, 'c1'), toolCallChunk('drip', {}, 'c2')],
      textChunks('they timed out'),
    ]);
    const agent = new Agent({ name: 'a', model, tools: [hang, stream] });
    const t0 = performance.now();
    const { events, msg } = await collect(agent, 'go');
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(msg.finishedReason).toBe('completed');
    const [hung, dripped] = resultsOf(msg);
    expect(hung).toMatchObject({ state: 'error' });
    expect(resultText(hung!)).toBe(
      '<system-reminder>The tool "hang" did not finish within its time limit of 50 ms and was stopped.</system-reminder>',
    );
    expect(resultText(dripped!)).toMatch(/^first part<system-reminder>The tool "drip" did not finish/);
    expect(seen?.aborted).toBe(true);
    // The model got the results and answered; the stream rebuilds the message.
    expect(getText(msg)).toBe('they timed out');
    expect(replayEvents(events)).toEqual(msg);
  });

  it('is not an interrupt: the reply signal stays live, and a fast call is unaffected', async () => {
    let signal: AbortSignal | undefined;
    const quick = defineTool({
      name: 'quick',
      description: 'quick',
      inputSchema: { type: 'object' },
      timeoutMs: 60_000,
      execute: (_input, ctx) => {
        signal = ctx.signal;
        return 'done quickly';
      },
    });
    const model = new ScriptedModel([[toolCallChunk('quick', {})], textChunks('ok')]);
    const msg = await new Agent({ name: 'a', model, tools: [quick] }).reply('go');
    expect(resultsOf(msg)[0]).toMatchObject({ state: 'success' });
    expect(signal?.aborted).toBe(false);
  });

  it('must be a number of ms > 0', () => {
    for (const timeoutMs of [0, -1, Number.NaN, '50', 2 ** 31])
      expect(() =>
        defineTool({
          name: 't',
          description: 't',
          inputSchema: { type: 'object' },
          timeoutMs: timeoutMs as number,
        }),
      ).toThrow(ConfigError);
  });
});

describe("the reply's timeoutMs", () => {
  it('ends a reply stuck in a tool that ignores every signal: error (connection), recorded, replayable', async () => {
    let toolSignal: AbortSignal | undefined;
    const stuck = defineTool({
      name: 'stuck',
      description: 'stuck',
      inputSchema: { type: 'object' },
      execute: (_input, ctx) => {
        toolSignal = ctx.signal;
        return forever();
      },
    });
    const model = new ScriptedModel([[toolCallChunk('stuck', {})], textChunks('next time')]);
    const agent = new Agent({ name: 'a', model, tools: [stuck], logger: quiet });
    const t0 = performance.now();
    const { events, msg } = await collect(agent, 'go', { timeoutMs: 100 });
    expect(performance.now() - t0).toBeLessThan(5000);
    expect(msg.finishedReason).toBe('error');
    expect(msg.error).toEqual({
      type: 'connection',
      message: 'The reply did not finish within its time limit of 100 ms.',
    });
    expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishedReason: 'error', error: msg.error });
    expect(resultsOf(msg)[0]).toMatchObject({ state: 'interrupted' });
    expect(resultText(resultsOf(msg)[0]!)).toMatch(/the reply reached its time limit/);
    // Tools see the reason.
    expect(ReplyTimeoutError.isInstance(toolSignal?.reason)).toBe(true);
    expect(replayEvents(events)).toEqual(msg);
    // The state is consistent: the next reply simply works.
    expect(getText(await agent.reply('again'))).toBe('next time');
  });

  it('ends a reply whose provider hangs (a stream that only ends when its signal aborts)', async () => {
    const hungProvider: ChatModel = {
      name: 'hung',
      contextSize: 10_000,
      async *stream(request: ModelRequest): AsyncIterable<ModelChunk> {
        yield { type: 'text', delta: 'thinking about it' };
        // Like an HTTP body that stalls: the SDK's fetch rejects when its signal aborts.
        await new Promise((_resolve, reject) =>
          request.signal.addEventListener('abort', () => reject(request.signal.reason), { once: true }),
        );
      },
    };
    const agent = new Agent({ name: 'a', model: hungProvider, logger: quiet });
    const { events, msg } = await collect(agent, 'go', { timeoutMs: 100 });
    expect(msg.finishedReason).toBe('error');
    expect(msg.error?.type).toBe('connection');
    expect(getText(msg)).toBe('thinking about it');
    expect(events.filter((e) => e.type === 'MODEL_CALL_END')).toMatchObject([
      { finishedReason: 'interrupted' },
    ]);
    expect(replayEvents(events)).toEqual(msg);
  });

  it('is cleared when the reply ends in time, and a caller interrupt stays an interrupt', async () => {
    let signal: AbortSignal | undefined;
    const keep = defineTool({
      name: 'keep',
      description: 'keeps its signal',
      inputSchema: { type: 'object' },
      execute: (_input, ctx) => {
        signal = ctx.signal;
        return 'kept';
      },
    });
    const model = new ScriptedModel([[toolCallChunk('keep', {})], textChunks('fine')]);
    const msg = await new Agent({ name: 'a', model, tools: [keep] }).reply('go', { timeoutMs: 80 });
    expect(msg.finishedReason).toBe('completed');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(signal?.aborted).toBe(false);

    const controller = new AbortController();
    const slow = new ScriptedModel([{ chunks: textChunks('a b c d e f'), delayMs: 50 }]);
    const pending = new Agent({ name: 'a', model: slow }).reply('go', {
      signal: controller.signal,
      timeoutMs: 60_000,
    });
    setTimeout(() => controller.abort(), 60);
    expect((await pending).finishedReason).toBe('interrupted');
  });

  it('must be a number of ms > 0', async () => {
    const agent = new Agent({ name: 'a', model: new ScriptedModel([textChunks('x')]) });
    for (const timeoutMs of [0, -5, Number.NaN, '100', 2 ** 31])
      await expect(agent.reply('x', { timeoutMs: timeoutMs as number })).rejects.toSatisfy((e) =>
        InvalidInputError.isInstance(e),
      );
  });
});
