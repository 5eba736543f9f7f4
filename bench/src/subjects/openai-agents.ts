import {
  Agent,
  type AgentInputItem,
  type AgentOutputItem,
  type AssistantMessageItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  run,
  type StreamEvent,
  setTracingDisabled,
  tool,
  Usage,
  user,
} from '@openai/agents';
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

// No OpenAI key and no OpenAI model here: the SDK's docs say to disable tracing in that case.
setTracingDisabled(true);

let responses = 0;
const usage = () => new Usage({ requests: 1, inputTokens: 10, outputTokens: 5, totalTokens: 15 });

function outputItem(step: Step): AgentOutputItem {
  if (step.kind === 'tool')
    return {
      type: 'function_call',
      id: `fc_${step.id}`,
      callId: step.id,
      name: 'add',
      arguments: JSON.stringify({ a: step.a, b: step.b }),
      status: 'completed',
    };
  return messageItem(step.text);
}

function messageItem(text: string): AssistantMessageItem {
  return {
    type: 'message',
    id: `msg_${responses}`,
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text }],
  };
}

/** A custom `Model` (the SDK's interface for other providers) playing the script with zero latency. */
class ScriptModel implements Model {
  constructor(
    private readonly next: () => Step,
    private readonly deltas: string[] = [],
  ) {}

  async getResponse(_request: ModelRequest): Promise<ModelResponse> {
    return { usage: usage(), output: [outputItem(this.next())], responseId: `resp_${++responses}` };
  }

  async *getStreamedResponse(_request: ModelRequest): AsyncIterable<StreamEvent> {
    const id = `resp_${++responses}`;
    yield { type: 'response_started' };
    let text = '';
    for (const delta of this.deltas) {
      text += delta;
      yield { type: 'output_text_delta', delta };
    }
    yield {
      type: 'response_done',
      response: {
        id,
        usage: {
          requests: 1,
          inputTokens: 10,
          outputTokens: this.deltas.length,
          totalTokens: 10 + this.deltas.length,
        },
        output: [messageItem(text)],
      },
    };
  }
}

const add = tool({
  name: 'add',
  description: addDescription,
  parameters: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => String(a + b),
});

/** OpenAI Agents SDK: `Agent` + `run()` (non-streamed and `stream: true`). */
export const openaiAgents: Subject = {
  async s1(k) {
    const cycle = new ToolCycle(k);
    const agent = new Agent({
      name: 'bench',
      instructions: 'You are a calculator.',
      model: new ScriptModel(() => cycle.next()),
      tools: [add],
    });
    return async () => {
      const result = await run(agent, 'Add the numbers.', { maxTurns: k + 2 });
      if (typeof result.finalOutput !== 'string') throw new Error('OpenAI Agents S1: no final output');
    };
  },
  async s2() {
    const cycle = new ToolCycle(1);
    const agent = new Agent({
      name: 'bench',
      instructions: 'You are a calculator.',
      model: new ScriptModel(() => cycle.next()),
      tools: [add],
    });
    let history: AgentInputItem[] = [];
    return async (turn) => {
      const result = await run(agent, [...history, user(turnText(turn))], { maxTurns: 4 });
      history = result.history;
    };
  },
  async s3(n) {
    const agent = new Agent({
      name: 'bench',
      instructions: 'You are a storyteller.',
      model: new ScriptModel(() => ({ kind: 'text', text: '' }), streamDeltas(n)),
    });
    return async () => {
      const result = await run(agent, 'Tell me a long story.', { stream: true });
      let count = 0;
      for await (const event of result)
        if (event.type === 'raw_model_stream_event' && event.data.type === 'output_text_delta') count++;
      await result.completed;
      return count;
    };
  },
  async s4() {
    const cycle = new TextCycle();
    const agent = new Agent({
      name: 'bench',
      instructions: 'You are a calculator.',
      model: new ScriptModel(() => ({ kind: 'text', text: cycle.next() })),
    });
    return async (session, turns) => {
      let history: AgentInputItem[] = [];
      for (let t = 0; t < turns; t++)
        history = (await run(agent, [...history, user(questionText(session, t))])).history;
      return history;
    };
  },
};
