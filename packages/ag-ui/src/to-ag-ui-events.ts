import { type AgentEvent, classifyError, type InputEvent, type Msg } from '@agentkit/core';
import type { AGUIEvent } from '@ag-ui/core';
import { AgUiEventMapper, type AgUiEventMapperOptions } from './ag-ui-event-mapper';

/** Options of {@link toAgUiEvents}. */
export interface ToAgUiEventsOptions extends AgUiEventMapperOptions {
  /**
   * The `RUN_ERROR` message when the event stream throws. Default: agentkit's classified, secret-free
   * message (`classifyError(error).message`).
   */
  onError?: (error: unknown) => string;
}

/**
 * One AG-UI run of a reply: `RUN_STARTED`, the mapped events (see {@link AgUiEventMapper}), then
 * `RUN_FINISHED` or `RUN_ERROR`. A final message in the stream (`replyStream({ yieldFinalMsg })`) is
 * skipped; a stream that throws ends with `RUN_ERROR`.
 * @example
 * for await (const event of toAgUiEvents(agent.replyStream('Hi!'), { threadId, runId })) send(event);
 */
export async function* toAgUiEvents(
  events: AsyncIterable<AgentEvent | InputEvent | Msg>,
  options: ToAgUiEventsOptions,
): AsyncGenerator<AGUIEvent> {
  const mapper = new AgUiEventMapper(options);
  const onError = options.onError ?? ((error: unknown) => classifyError(error).message);
  yield* mapper.start();
  try {
    for await (const event of events) if ('type' in event) yield* mapper.push(event);
  } catch (error) {
    yield* mapper.finish({ status: 'failed', error: { message: onError(error), code: 'INTERNAL' } });
    return;
  }
  yield* mapper.finish();
}

/**
 * A `Response` that streams a reply as AG-UI events over SSE (`data: <event JSON>`), what an AG-UI
 * `HttpAgent` reads — for a route of your own server.
 * @example
 * const input = RunAgentInputSchema.parse(await req.json());
 * const reply = agent.replyStream(replyInputFromRunAgentInput(input, agent.state));
 * return toAgUiResponse(reply, { threadId: input.threadId, runId: input.runId });
 */
export function toAgUiResponse(
  events: AsyncIterable<AgentEvent | InputEvent | Msg>,
  options: ToAgUiEventsOptions,
): Response {
  const iterator = toAgUiEvents(events, options);
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(`data: ${JSON.stringify(next.value)}\n\n`));
    },
    async cancel() {
      await iterator.return(undefined);
    },
  });
  return new Response(body, {
    headers: { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', 'X-Accel-Buffering': 'no' },
  });
}
