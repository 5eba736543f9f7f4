import { AgentkitError, InvalidInputError } from '@agentkit/core';
import { followRun, type ServerExtension, TooManyRepliesError, toSseMessages } from '@agentkit/server';
import { RunAgentInputSchema } from '@ag-ui/core/schemas';
import { z } from 'zod';
import { AgUiEventMapper, type AgUiEventMapperOptions } from '../ag-ui-event-mapper';
import { replyInputFromRunAgentInput } from '../reply-input-from-run-agent-input';

/** Options of {@link agUiRun}. */
export interface AgUiRunOptions extends Pick<AgUiEventMapperOptions, 'reasoning'> {}

const PATH = '/agents/:agentId/ag-ui';
/** Ids as the server's routes take them (`.` and `..` are path segments in URLs: never reachable there). */
const ID = /^(?!\.\.?$)[A-Za-z0-9_.~-]{1,128}$/;

/**
 * The body as the OpenAPI document shows it. Requests are validated with AG-UI's own `RunAgentInputSchema`,
 * which has parts JSON Schema cannot represent.
 */
const RunAgentInputDoc = z
  .object({
    threadId: z.string(),
    runId: z.string(),
    messages: z.array(z.looseObject({ id: z.string(), role: z.string() })),
    resume: z
      .array(
        z.looseObject({
          interruptId: z.string(),
          status: z.enum(['resolved', 'cancelled']),
          payload: z.unknown().optional(),
        }),
      )
      .optional(),
  })
  .loose()
  .describe("An AG-UI RunAgentInput (validated with @ag-ui/core's RunAgentInputSchema)");

/** Input the reply refuses: AG-UI wants these as `RUN_ERROR` in the stream, not as an HTTP error. */
const REFUSALS = new Set(['INVALID_INPUT', 'INVALID_MESSAGE', 'REPLY_PAUSED', 'RESUME_MISMATCH']);

/**
 * A server extension that runs agents for AG-UI clients: `POST /agents/:agentId/ag-ui` takes a
 * `RunAgentInput` (validated with AG-UI's own schema; `threadId` is the session id of the authenticated
 * user), runs the reply through the server's runner and streams AG-UI events over SSE — what
 * `new HttpAgent({ url: '<server>/agents/<agentId>/ag-ui' })` (and CopilotKit) reads. The session holds
 * the history: only the new user messages, the `resume` answers and frontend tool results are read (see
 * `replyInputFromRunAgentInput`). `runId` doubles as the reply's idempotency key. Input the reply refuses
 * (open interrupts left unanswered, an unknown interrupt id) ends the run with `RUN_ERROR`.
 * @example
 * const app = createAgentServer({ agents, store, authenticate, extensions: [agUiRun()] });
 */
export function agUiRun(options: AgUiRunOptions = {}): ServerExtension {
  return (app, server) => {
    const { store } = server.options;
    const maxRunning = server.options.limits?.maxRunningRepliesPerUser ?? 4;
    server.routes.push({
      method: 'post',
      path: PATH,
      summary:
        'AG-UI: run the agent for a RunAgentInput (threadId = the session id) and stream AG-UI events (HttpAgent, CopilotKit)',
      body: RunAgentInputDoc,
      sse: true,
      responses: {
        200: 'AG-UI events (text/event-stream); refused input ends with RUN_ERROR',
        400: 'Not a RunAgentInput, or a threadId that is not a session id',
        401: 'No credentials',
        404: 'No such agent',
        409: 'A reply of the session is running',
        413: 'Body too large',
        429: 'Too many running replies of this user',
        503: 'Shutting down',
      },
    });
    app.post(PATH, async (c) => {
      const agent = server.session(c);
      const input = await server.body(c, RunAgentInputSchema);
      if (!ID.test(input.threadId))
        throw new InvalidInputError(
          "The threadId must be 1 to 128 characters from A-Z a-z 0-9 _ . ~ -, not '.' or '..'.",
        );
      const session = { ...agent, sessionId: input.threadId };
      if (server.runner.runningFor(session.userId) >= maxRunning) throw new TooManyRepliesError(maxRunning);
      const record = await store.getSession(session.userId, session.agentId, session.sessionId);
      const mapper = new AgUiEventMapper({
        ...options,
        threadId: input.threadId,
        runId: input.runId,
        history: record?.state.context ?? [],
      });
      let run: Awaited<ReturnType<typeof server.runner.start>>;
      try {
        run = await server.runner.start({
          session,
          input: replyInputFromRunAgentInput(input, record?.state),
          ...(ID.test(input.runId) ? { replyId: input.runId } : {}),
        });
      } catch (error) {
        if (!AgentkitError.isInstance(error) || !REFUSALS.has(error.code)) throw error;
        const refused = [
          ...mapper.start(),
          ...mapper.finish({ status: 'failed', error: { message: error.message, code: error.code } }),
        ];
        return c.body(refused.map((e) => `data: ${JSON.stringify(e)}\n\n`).join(''), 200, {
          'Content-Type': 'text/event-stream',
          'Cache-Control': 'no-cache',
        });
      }
      return followRun(c, server, session, run, ({ id, event }) => {
        if (event.type === 'RUN_START')
          return event.runId === run.runId ? toSseMessages(id, mapper.start()) : [];
        if (event.type === 'RUN_END')
          return event.runId === run.runId ? toSseMessages(id, mapper.finish(event)) : [];
        if (event.type === 'STREAM_GAP')
          // The client fell behind what the server keeps of the run's events: the run fails for it.
          return toSseMessages(
            id,
            mapper.finish({
              status: 'failed',
              error: {
                code: 'STREAM_GAP',
                message: 'The client fell behind what the server keeps of the run: reload the thread.',
              },
            }),
          );
        return toSseMessages(id, mapper.push(event));
      });
    });
  };
}
