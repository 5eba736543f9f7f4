// Issue 13: the loop driven by random model outputs — random tool names, argument shapes (deep,
// cyclic-looking, broken JSON, prototype keys), thrown values of every type, bad data, random aborts and
// deadlines, small limits. Whatever happens: every reply ends with a finished reason, the state parses,
// and replaying the events gives exactly the returned message, with usage reported on every call.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Agent } from './agent';
import { defineTool } from './define-tool';
import type { AgentEvent } from './events';
import type { ChatModel, ModelChunk } from './model';
import type { Msg } from './msg';
import { replayEvents } from './replay-events';
import { parseAgentState } from './state';
import { ScriptedModel, type ScriptedResponse } from './testing/scripted-model';
import type { ToolChunk } from './tool';
import { addUsage, emptyUsage } from './usage';

/** Values code may throw: errors, primitives, a null-prototype object, a proxy whose every trap throws. */
const THROWN: Array<() => unknown> = [
  () => new Error('plain error'),
  () => new TypeError('type error'),
  () => 'a string',
  () => undefined,
  () => null,
  () => 0,
  () => 42n,
  () => Symbol('thrown'),
  () => Object.create(null),
  () => ({ message: { nested: true } }),
  () =>
    new Proxy(
      {},
      {
        get() {
          throw new Error('trap');
        },
        getPrototypeOf() {
          throw new Error('trap');
        },
        has() {
          throw new Error('trap');
        },
      },
    ),
];

const TOOL_NAMES = ['echo', 'thrower', 'streamer', 'slow', 'strict'];

/** The agent's tools: they echo, throw what they are told, stream, wait (honouring the signal), validate. */
const tools = [
  defineTool({
    name: 'echo',
    description: 'echo',
    inputSchema: { type: 'object' },
    concurrencySafe: true,
    execute: (input: unknown) => input,
  }),
  defineTool({
    name: 'thrower',
    description: 'throws',
    inputSchema: { type: 'object', properties: { which: { type: 'integer' } } },
    execute: ({ which }: { which?: number }) => {
      throw THROWN[Math.abs(which ?? 0) % THROWN.length]!();
    },
  }),
  defineTool({
    name: 'streamer',
    description: 'streams',
    inputSchema: { type: 'object' },
    concurrencySafe: true,
    async *execute(): AsyncGenerator<ToolChunk> {
      yield 'part one, ';
      yield { type: 'data', source: { type: 'base64', data: 'AQID', mediaType: 'application/octet-stream' } };
      yield 'part two';
    },
  }),
  defineTool({
    name: 'slow',
    description: 'waits',
    inputSchema: { type: 'object' },
    timeoutMs: 30,
    execute: (_input: unknown, ctx) =>
      new Promise((resolve) => {
        const timer = setTimeout(() => resolve('waited'), 5 + Math.floor(Math.random() * 40));
        ctx.signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
      }),
  }),
  defineTool({
    name: 'strict',
    description: 'validates',
    inputSchema: {
      type: 'object',
      properties: { mode: { enum: ['a', 'b'] }, n: { const: 1 }, constructor: { type: 'string' } },
      required: ['mode', 'constructor'],
      additionalProperties: false,
    },
    execute: () => 'valid',
  }),
];

const deep = (depth: number, open = '[', close = ']') => open.repeat(depth) + close.repeat(depth);

/** Tool arguments as a model may send them: valid, odd, broken, huge in depth. */
const args: fc.Arbitrary<string> = fc.oneof(
  { weight: 2, arbitrary: fc.nat(THROWN.length - 1).map((which) => `{"which":${which}}`) },
  fc.json(),
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '',
      '{',
      'null',
      '[]',
      '"text"',
      '{"__proto__":{"isAdmin":true}}',
      '{"mode":"a","constructor":"x"}',
      '{"mode":"c"}',
      '{"constructor":1}',
      '{"a":{"$ref":"#"},"b":{"$ref":"#/a"}}',
      '{"self":{"self":{"self":"..."}}}',
      `{"mode":${deep(100_000)}}`,
      `{"n":${deep(2_000, '{"a":', '}')}}`,
    ),
  },
);

const call: fc.Arbitrary<ModelChunk[]> = fc
  .record({
    name: fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...TOOL_NAMES) },
      { weight: 1, arbitrary: fc.string({ maxLength: 8 }) },
    ),
    id: fc.constantFrom('c1', 'c2', 'c3', 'dup'),
    args,
    split: fc.boolean(),
  })
  .map(({ name, id, args: a, split }) => {
    const half = split ? Math.floor(a.length / 2) : a.length;
    return [
      { type: 'tool_call', id, name, delta: a.slice(0, half) },
      ...(half < a.length ? [{ type: 'tool_call' as const, id, delta: a.slice(half) }] : []),
    ];
  });

const chunk: fc.Arbitrary<ModelChunk[]> = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 30 }).map((delta) => [{ type: 'text' as const, delta }]) },
  {
    weight: 1,
    arbitrary: fc.string({ maxLength: 30 }).map((delta) => [{ type: 'thinking' as const, delta }]),
  },
  { weight: 4, arbitrary: call },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom('AAAA', 'AQID', 'AQ==', 'AQI=', '', 'AQID', 'not base64!')
      .map((data) => [{ type: 'data' as const, mediaType: 'image/png', data }]),
  },
);

const usage = fc.record({
  inputTokens: fc.nat(1000),
  outputTokens: fc.nat(100),
  cacheInputTokens: fc.nat(10),
  cacheCreationInputTokens: fc.nat(10),
  reasoningTokens: fc.nat(10),
});

/** One model response: chunks and usage (always reported), maybe failing midway or before anything. */
const response: fc.Arbitrary<ScriptedResponse> = fc.oneof(
  {
    weight: 8,
    arbitrary: fc.tuple(fc.array(chunk, { minLength: 1, maxLength: 5 }), usage).map(([c, u]) => ({
      chunks: [...c.flat(), { type: 'usage' as const, usage: u }],
      delayMs: 0,
    })),
  },
  { weight: 1, arbitrary: fc.nat(THROWN.length - 1).map((i) => ({ error: THROWN[i]!() as Error })) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.array(chunk, { maxLength: 3 }), usage, fc.nat(THROWN.length - 1))
      .map(([c, u, i]) => ({
        chunks: [...c.flat(), { type: 'usage' as const, usage: u }],
        errorAfter: THROWN[i]!() as Error,
      })),
  },
);

const scenario = fc.record({
  script: fc.array(response, { minLength: 1, maxLength: 5 }),
  // Now and then: a caller's interrupt, or the reply's own deadline, at a random moment.
  abortAfterMs: fc.oneof(
    { weight: 4, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.nat(15) },
  ),
  timeoutMs: fc.oneof(
    { weight: 4, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.integer({ min: 1, max: 40 }) },
  ),
  delayMs: fc.constantFrom(0, 0, 1, 3),
  // Mostly the defaults; now and then limits small enough to be hit.
  limits: fc.oneof(
    { weight: 2, arbitrary: fc.constant({}) },
    {
      weight: 1,
      arbitrary: fc.record(
        {
          maxParallelToolCalls: fc.integer({ min: 1, max: 4 }),
          maxToolCallsPerResponse: fc.integer({ min: 1, max: 6 }),
          maxToolInputChars: fc.constantFrom(20, 1000),
          maxResponseChars: fc.constantFrom(40, 10_000),
        },
        { requiredKeys: [] },
      ),
    },
  ),
  maxIters: fc.integer({ min: 1, max: 4 }),
});

const quiet = { warn() {}, error() {} };

describe('the reply loop under random model outputs (property)', () => {
  it('always ends with a reason, leaves a state that parses, and replays to the returned message', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        const script = s.script.map((r) =>
          typeof r === 'object' && 'chunks' in r ? { ...r, delayMs: s.delayMs } : r,
        );
        const scripted = new ScriptedModel(script, { onExhausted: 'repeat', recordRequests: false });
        let modelThrew = false;
        const model: ChatModel = {
          name: scripted.name,
          contextSize: scripted.contextSize,
          async *stream(request) {
            try {
              yield* scripted.stream(request);
            } catch (error) {
              modelThrew ||= !request.signal.aborted;
              throw error;
            }
          },
        };
        const agent = new Agent({
          name: 'a',
          model,
          tools,
          maxIters: s.maxIters,
          limits: s.limits,
          logger: quiet,
        });
        const controller = new AbortController();
        const timer =
          s.abortAfterMs === undefined ? undefined : setTimeout(() => controller.abort(), s.abortAfterMs);
        const events: AgentEvent[] = [];
        let msg: Msg | undefined;
        try {
          for await (const item of agent.replyStream('go', {
            signal: controller.signal,
            ...(s.timeoutMs ? { timeoutMs: s.timeoutMs } : {}),
            yieldFinalMsg: true,
          }))
            if ('type' in item) events.push(item);
            else msg = item;
        } finally {
          clearTimeout(timer);
        }
        expect(msg).toBeDefined();
        expect(['completed', 'interrupted', 'exceed_max_iters', 'error']).toContain(msg!.finishedReason);
        expect(events.at(-1)).toMatchObject({ type: 'REPLY_END', finishedReason: msg!.finishedReason });
        // Only the model (a failure, bad data, an empty response) or the deadline ends a reply with an
        // error: whatever tools throw and whatever arguments the model sends become tool results.
        if (msg!.finishedReason === 'error')
          expect(
            modelThrew || /not base64|empty response|time limit/.test(msg!.error!.message),
            msg!.error!.message,
          ).toBe(true);
        // Every call answered: a provider would accept the next request.
        const calls = msg!.content.filter((b) => b.type === 'tool_call');
        expect(calls.every((c) => c.state === 'finished')).toBe(true);
        // The state is JSON that loads again.
        const state = parseAgentState(JSON.stringify(agent.state));
        expect(state.context.at(-1)).toEqual(JSON.parse(JSON.stringify(msg)));
        // Replay rebuilds the message, usage included (the sum of the calls' MODEL_CALL_END).
        expect(replayEvents(events)).toEqual(msg);
        const sum = events.reduce(
          (u, e) => (e.type === 'MODEL_CALL_END' ? addUsage(u, e.usage) : u),
          emptyUsage(),
        );
        expect(msg!.usage ?? emptyUsage()).toEqual(sum);
        // And the next reply on this state simply works.
        const next = await new Agent({
          name: 'a',
          model: new ScriptedModel([[{ type: 'text', delta: 'ok' }]]),
          state,
        }).reply('again');
        expect(next.finishedReason).toBe('completed');
      }),
      { numRuns: 150 },
    );
  }, 120_000);
});
