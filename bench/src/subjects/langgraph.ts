import type { CallbackManagerForLLMRun } from '@langchain/core/callbacks/manager';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, AIMessageChunk, type BaseMessage, HumanMessage } from '@langchain/core/messages';
import { ChatGenerationChunk, type ChatResult } from '@langchain/core/outputs';
import { type StructuredToolInterface, tool } from '@langchain/core/tools';
import { convertToOpenAITool } from '@langchain/core/utils/function_calling';
import { MemorySaver } from '@langchain/langgraph';
import { createReactAgent } from '@langchain/langgraph/prebuilt';
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

const usage = { input_tokens: 10, output_tokens: 5, total_tokens: 15 };

/**
 * A minimal custom chat model (the fakes in `@langchain/core/utils/testing` cannot script a sequence of
 * tool calls). `bindTools` converts the tools once, like a real provider integration.
 */
class ScriptChatModel extends BaseChatModel {
  constructor(protected readonly next: () => Step) {
    super({});
  }

  _llmType(): string {
    return 'script';
  }

  override bindTools(tools: StructuredToolInterface[]) {
    return this.withConfig({ tools: tools.map((t) => convertToOpenAITool(t)) } as Record<string, unknown>);
  }

  async _generate(_messages: BaseMessage[]): Promise<ChatResult> {
    const step = this.next();
    const message =
      step.kind === 'tool'
        ? new AIMessage({
            content: '',
            tool_calls: [{ id: step.id, name: 'add', args: { a: step.a, b: step.b }, type: 'tool_call' }],
            usage_metadata: usage,
          })
        : new AIMessage({ content: step.text, usage_metadata: usage });
    return { generations: [{ text: step.kind === 'text' ? step.text : '', message }] };
  }
}

/** The same model with token streaming (S3): one chunk per delta, reported to the callbacks. */
class StreamingScriptChatModel extends ScriptChatModel {
  constructor(private readonly deltas: string[]) {
    super(() => ({ kind: 'text', text: deltas.join('') }));
  }

  override async *_streamResponseChunks(
    _messages: BaseMessage[],
    _options: this['ParsedCallOptions'],
    runManager?: CallbackManagerForLLMRun,
  ): AsyncGenerator<ChatGenerationChunk> {
    for (const delta of this.deltas) {
      const chunk = new ChatGenerationChunk({ text: delta, message: new AIMessageChunk({ content: delta }) });
      yield chunk;
      await runManager?.handleLLMNewToken(delta, undefined, undefined, undefined, undefined, { chunk });
    }
  }
}

const add = tool(async ({ a, b }) => String(a + b), {
  name: 'add',
  description: addDescription,
  schema: z.object({ a: z.number(), b: z.number() }),
});

/**
 * LangGraph.js: the prebuilt `createReactAgent` (the `langchain` package's `createAgent` is not
 * installed); multi-turn memory through a `MemorySaver` checkpointer and a thread id, as its docs show.
 */
export const langgraph: Subject = {
  async s1(k) {
    const cycle = new ToolCycle(k);
    const agent = createReactAgent({
      llm: new ScriptChatModel(() => cycle.next()),
      tools: [add],
      prompt: 'You are a calculator.',
    });
    return async () => {
      const result = await agent.invoke(
        { messages: [new HumanMessage('Add the numbers.')] },
        { recursionLimit: 2 * k + 10 },
      );
      if (result.messages.length !== 2 * k + 2)
        throw new Error(`LangGraph S1: ${result.messages.length} messages`);
    };
  },
  async s2() {
    const cycle = new ToolCycle(1);
    const agent = createReactAgent({
      llm: new ScriptChatModel(() => cycle.next()),
      tools: [add],
      prompt: 'You are a calculator.',
      checkpointSaver: new MemorySaver(),
    });
    const config = { configurable: { thread_id: 'bench' }, recursionLimit: 20 };
    return async (turn) => {
      await agent.invoke({ messages: [new HumanMessage(turnText(turn))] }, config);
    };
  },
  async s3(n) {
    const agent = createReactAgent({
      llm: new StreamingScriptChatModel(streamDeltas(n)),
      tools: [],
      prompt: 'You are a storyteller.',
    });
    return async () => {
      let count = 0;
      const stream = await agent.stream(
        { messages: [new HumanMessage('Tell me a long story.')] },
        { streamMode: 'messages' },
      );
      for await (const [chunk] of stream)
        if (typeof chunk.content === 'string' && chunk.content !== '') count++;
      return count;
    };
  },
  async s4() {
    const cycle = new TextCycle();
    const agent = createReactAgent({
      llm: new ScriptChatModel(() => ({ kind: 'text', text: cycle.next() })),
      tools: [],
      prompt: 'You are a calculator.',
    });
    return async (session, turns) => {
      let messages: BaseMessage[] = [];
      for (let t = 0; t < turns; t++)
        messages = (
          await agent.invoke({ messages: [...messages, new HumanMessage(questionText(session, t))] })
        ).messages;
      return messages;
    };
  },
};
