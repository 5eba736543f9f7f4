import { type ModelMessage, stepCountIs, ToolLoopAgent, tool } from 'ai';
import { MockLanguageModelV4, simulateReadableStream } from 'ai/test';
import { z } from 'zod';
import {
  addDescription,
  questionText,
  type Step,
  streamDeltas,
  TextCycle,
  ToolCycle,
  turnText,
} from '../workload';
import type { Subject } from './subject';

// The provider types, read off the mock (the bench does not depend on @ai-sdk/provider directly).
type LanguageModelV4GenerateResult = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>;
type StreamOf<T> = T extends ReadableStream<infer P> ? P : never;
type LanguageModelV4StreamPart = StreamOf<Awaited<ReturnType<MockLanguageModelV4['doStream']>>['stream']>;

const usage = () => ({
  inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
});

function generateResult(step: Step): LanguageModelV4GenerateResult {
  if (step.kind === 'tool')
    return {
      content: [
        {
          type: 'tool-call',
          toolCallId: step.id,
          toolName: 'add',
          input: JSON.stringify({ a: step.a, b: step.b }),
        },
      ],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage: usage(),
      warnings: [],
    };
  return {
    content: [{ type: 'text', text: step.text }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: usage(),
    warnings: [],
  };
}

/** The AI SDK's `MockLanguageModelV4` playing the script (it keeps no call log: cleared on every call). */
function mockModel(next: () => Step): MockLanguageModelV4 {
  const model: MockLanguageModelV4 = new MockLanguageModelV4({
    doGenerate: async () => {
      model.doGenerateCalls.length = 0;
      return generateResult(next());
    },
  });
  return model;
}

const add = tool({
  description: addDescription,
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => String(a + b),
});

/** Vercel AI SDK 7: `ToolLoopAgent` (its agent abstraction), `generate` and `stream`. */
export const aiSdk: Subject = {
  async s1(k) {
    const cycle = new ToolCycle(k);
    const agent = new ToolLoopAgent({
      model: mockModel(() => cycle.next()),
      instructions: 'You are a calculator.',
      tools: { add },
      stopWhen: stepCountIs(k + 2),
    });
    return async () => {
      const result = await agent.generate({ prompt: 'Add the numbers.' });
      if (result.steps.length !== k + 1) throw new Error(`AI SDK S1: ${result.steps.length} steps`);
    };
  },
  async s2() {
    const cycle = new ToolCycle(1);
    const agent = new ToolLoopAgent({
      model: mockModel(() => cycle.next()),
      instructions: 'You are a calculator.',
      tools: { add },
      stopWhen: stepCountIs(3),
    });
    const history: ModelMessage[] = [];
    return async (turn) => {
      history.push({ role: 'user', content: turnText(turn) });
      const result = await agent.generate({ messages: history });
      history.push(...result.response.messages);
    };
  },
  async s3(n) {
    const parts: LanguageModelV4StreamPart[] = [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't1' },
      ...streamDeltas(n).map((delta): LanguageModelV4StreamPart => ({ type: 'text-delta', id: 't1', delta })),
      { type: 'text-end', id: 't1' },
      { type: 'finish', usage: usage(), finishReason: { unified: 'stop', raw: 'stop' } },
    ];
    const model: MockLanguageModelV4 = new MockLanguageModelV4({
      doStream: async () => {
        model.doStreamCalls.length = 0;
        return {
          stream: simulateReadableStream({ chunks: parts, initialDelayInMs: null, chunkDelayInMs: null }),
        };
      },
    });
    const agent = new ToolLoopAgent({ model, instructions: 'You are a storyteller.' });
    return async () => {
      const result = await agent.stream({ prompt: 'Tell me a long story.' });
      let count = 0;
      for await (const part of result.fullStream) if (part.type === 'text-delta') count++;
      return count;
    };
  },
  async s4() {
    const cycle = new TextCycle();
    const agent = new ToolLoopAgent({
      model: mockModel(() => ({ kind: 'text', text: cycle.next() })),
      instructions: 'You are a calculator.',
    });
    return async (session, turns) => {
      const history: ModelMessage[] = [];
      for (let t = 0; t < turns; t++) {
        history.push({ role: 'user', content: questionText(session, t) });
        const result = await agent.generate({ messages: history });
        history.push(...result.response.messages);
      }
      return history;
    };
  },
};
