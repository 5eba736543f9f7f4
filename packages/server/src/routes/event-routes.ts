import { AgentkitError } from '@agentkit/core';
import type { Hono } from 'hono';
import type { ServerContext, ServerVariables } from '../agent-server-options';
import type { LogEvent } from '../event-log';
import { InProcessRunner } from '../in-process-runner';
import { latestReplyStart } from '../latest-reply-start';
import { parseLogId } from '../log-ids';
import { EventsQuery } from '../schemas';

const ONE = '/agents/:agentId/sessions/:sessionId';

/** Following a session's events over SSE. */
export function registerEventRoutes(app: Hono<{ Variables: ServerVariables }>, server: ServerContext): void {
  const { store } = server.options;

  server.routes.push({
    method: 'get',
    path: `${ONE}/events`,
    summary:
      "Follow the session's events (SSE). Without Last-Event-ID (or `after`): the latest reply from its start, then live until no reply runs; with it: exactly what came after",
    query: EventsQuery,
    sse: true,
    responses: {
      200: 'text/event-stream',
      400: 'Bad event id',
      401: 'No credentials',
      404: 'No such session',
    },
  });
  app.get(`${ONE}/events`, async (c) => {
    const session = server.session(c);
    const { userId, agentId, sessionId } = session;
    const record = await store.getSession(userId, agentId, sessionId);
    if (!record) throw new AgentkitError('NOT_FOUND', 'There is no such session.');
    const given = c.req.header('Last-Event-ID') ?? server.query(c, EventsQuery).after;
    let start: { after: string | null; prelude?: LogEvent[] };
    if (given !== undefined && given !== '') {
      parseLogId(given); // 400 for anything this server never sent
      // 503 now when the log is unreachable, not a stream that ends as soon as it started.
      await server.log.lastId(session);
      start = { after: given };
    } else start = await latestReplyStart(server.log, session, record.state);
    const idle = async () => (await store.getLease(userId, agentId, sessionId)) === null;
    return server.follow(c, {
      session,
      after: start.after,
      isLast: () => false,
      idle,
      // A run of a process that stopped (killed) is continued by nobody here: do not wait for its end.
      ...(server.runner instanceof InProcessRunner ? { orphaned: idle } : {}),
      ...(start.prelude ? { prelude: start.prelude } : {}),
    });
  });
}
