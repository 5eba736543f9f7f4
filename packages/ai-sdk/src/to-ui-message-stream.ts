import { type AgentEvent, classifyError, type InputEvent, type Msg } from '@agentkit/core';
import { createUIMessageStreamResponse, type UIMessageChunk } from 'ai';
import { UIMessageMapper, type UIMessageMapperOptions } from './ui-message-mapper';

/** Options of {@link toUIMessageStream}. */
export interface ToUIMessageStreamOptions extends UIMessageMapperOptions {
  /**
   * The text of the `error` chunk sent when the event stream throws. Default: agentkit's classified,
   * secret-free message (`classifyError(error).message`).
   */
  onError?: (error: unknown) => string;
}

/**
 * The AI SDK UI message stream of a reply: maps agentkit events (e.g. `agent.replyStream(input)`; a final
 * message in the stream is skipped) to
 * UI message chunks (see {@link UIMessageMapper} for the mapping) and ends with `finish`. A stream that
 * throws ends with an `error` chunk and `finish`; cancelling the result stops reading the events.
 * @example
 * const stream = toUIMessageStream(agent.replyStream('Hi!'));
 * for await (const message of readUIMessageStream({ stream })) render(message);
 */
export function toUIMessageStream(
  events: AsyncIterable<AgentEvent | InputEvent | Msg>,
  options: ToUIMessageStreamOptions = {},
): ReadableStream<UIMessageChunk> {
  const mapper = new UIMessageMapper(options);
  const onError = options.onError ?? ((error: unknown) => classifyError(error).message);
  let iterator: AsyncIterator<AgentEvent | InputEvent | Msg> | undefined;
  return new ReadableStream<UIMessageChunk>({
    async pull(controller) {
      iterator ??= events[Symbol.asyncIterator]();
      try {
        for (;;) {
          const next = await iterator.next();
          if (next.done) {
            for (const chunk of mapper.finish()) controller.enqueue(chunk);
            controller.close();
            return;
          }
          if (!('type' in next.value)) continue; // the final message of `replyStream({ yieldFinalMsg })`
          const chunks = mapper.push(next.value);
          for (const chunk of chunks) controller.enqueue(chunk);
          if (chunks.length > 0) return;
        }
      } catch (error) {
        for (const chunk of mapper.finish({ status: 'failed', error: { message: onError(error) } }))
          controller.enqueue(chunk);
        controller.close();
      }
    },
    async cancel() {
      await iterator?.return?.();
    },
  });
}

/** Options of {@link toUIMessageStreamResponse}. */
export interface ToUIMessageStreamResponseOptions extends ToUIMessageStreamOptions {
  /** HTTP status. Default 200. */
  status?: number;
  /** Extra headers (the UI message stream's own are always set). */
  headers?: HeadersInit;
}

/**
 * A `Response` that streams a reply as the AI SDK's UI message stream over SSE, with the headers
 * `useChat`'s default transport expects — for a route of your own server.
 * @example
 * // app/api/chat/route.ts (Next.js)
 * export async function POST(req: Request) {
 *   const { messages } = await req.json();
 *   const input = replyInputFromUIMessages(messages, agent.state);
 *   return toUIMessageStreamResponse(agent.replyStream(input));
 * }
 */
export function toUIMessageStreamResponse(
  events: AsyncIterable<AgentEvent | InputEvent | Msg>,
  options: ToUIMessageStreamResponseOptions = {},
): Response {
  const { status, headers, ...rest } = options;
  return createUIMessageStreamResponse({
    stream: toUIMessageStream(events, rest),
    ...(status !== undefined ? { status } : {}),
    ...(headers !== undefined ? { headers } : {}),
  });
}
