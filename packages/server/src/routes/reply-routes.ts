import {
  AgentkitError,
  type AgentInput,
  awaitingToolCalls,
  ConfigError,
  InvalidInputError,
  userInterrupt,
} from '@agentkit/core';
import type { Hono } from 'hono';
import type { ServerContext, ServerVariables } from '../agent-server-options';
import { followRun } from '../follow-run';
import { toMessages } from '../to-messages';
import { TooManyRepliesError } from '../errors';
import { ReplyBody } from '../schemas';

const ONE = '/agents/:agentId/sessions/:sessionId';

/** Replies: start or resume one (streamed or in the background), interrupt. */
export function registerReplyRoutes(app: Hono<{ Variables: ServerVariables }>, server: ServerContext): void {
  const { store } = server.options;
  const maxRunning = server.options.limits?.maxRunningRepliesPerUser ?? 4;

  server.routes.push({
    method: 'post',
    path: `${ONE}/replies`,
    summary:
      'Start a reply (a new session is created), resume a paused one, or continue one left unfinished. With `Accept: text/event-stream` the response streams its events; otherwise 202 and it runs in the background',
    body: ReplyBody,
    sse: true,
    responses: {
      200: 'The events (text/event-stream)',
      202: '{ runId, replyEvents }: follow them at …/events?after=',
      400: 'Bad body or input',
      401: 'No credentials',
      404: 'No such agent',
      409: 'A reply of the session is running, or it is paused and the input does not answer it',
      413: 'Body too large',
      429: 'Too many running replies of this user',
      503: 'Shutting down',
    },
  });
  app.post(`${ONE}/replies`, async (c) => {
    const session = server.session(c);
    const body = await server.body(c, ReplyBody);
    if (server.runner.runningFor(session.userId) >= maxRunning) throw new TooManyRepliesError(maxRunning);
    const input: AgentInput =
      body.input === null || typeof body.input === 'string'
        ? body.input
        : Array.isArray(body.input)
          ? toMessages(body.input)
          : (body.input as AgentInput);
    const run = await server.runner
      .start({
        session,
        input,
        ...(body.replyId ? { replyId: body.replyId } : {}),
        ...(body.structuredSchema
          ? { replyOptions: { structuredSchema: body.structuredSchema as never } }
          : {}),
      })
      .catch((error: unknown) => {
        // The client asked for what this agent cannot do: its mistake (400), not the server's (500).
        if (ConfigError.isInstance(error) && error.field === 'structuredSchema')
          throw new InvalidInputError(
            "This agent does not take 'structuredSchema' (it has no structured-output plugin).",
          );
        throw error;
      });
    if (wantsEvents(c.req.header('Accept'))) return followRun(c, server, session, run);
    const events = `${c.req.path.replace(/\/replies$/, '/events')}${run.after ? `?after=${run.after}` : ''}`;
    return c.json({ runId: run.runId, events }, 202);
  });

  server.routes.push({
    method: 'post',
    path: `${ONE}/interrupt`,
    summary: 'Interrupt the running or queued reply (wherever it runs), or end a paused one',
    responses: {
      202: 'Interrupt sent',
      204: 'Nothing to interrupt',
      401: 'No credentials',
      404: 'No such session',
    },
  });
  app.post(`${ONE}/interrupt`, async (c) => {
    const session = server.session(c);
    const { userId, agentId, sessionId } = session;
    const [record, lease] = await Promise.all([
      store.getSession(userId, agentId, sessionId),
      store.getLease(userId, agentId, sessionId),
    ]);
    const paused = record !== null && awaitingToolCalls(record.state).length > 0;
    // A reply running anywhere (it holds the lease) or waiting in a runner's queue (it does not yet, and
    // the first reply of a new session has no record yet either).
    if (lease || !paused) {
      const reached = await server.runner.interrupt(session);
      if (lease || reached) return c.json({ interrupted: true }, 202);
    }
    if (!record) throw new AgentkitError('NOT_FOUND', 'There is no such session.');
    if (paused) {
      const run = await server.runner.start({ session, input: userInterrupt() });
      return c.json({ interrupted: true, runId: run.runId }, 202);
    }
    return c.body(null, 204);
  });
}

function wantsEvents(accept: string | undefined): boolean {
  return accept?.toLowerCase().includes('text/event-stream') ?? false;
}
