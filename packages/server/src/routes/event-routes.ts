import { AgentkitError, type Msg, type SessionKey } from '@agentkit/core';
import type { Hono } from 'hono';
import type { ServerContext, ServerVariables } from '../agent-server-options';
import type { EventLog, LogEvent } from '../event-log';
import { parseLogId } from '../log-ids';
import { EventsQuery } from '../schemas';

const ONE = '/agents/:agentId/sessions/:sessionId';

/** How far back to look for the start of the latest reply. */
const SCAN_LIMIT = 20_000;

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
    let after: string | null = null;
    let prelude: LogEvent[] | undefined;
    if (given !== undefined && given !== '') {
      parseLogId(given); // 400 for anything this server never sent
      after = given;
    } else {
      const replyId = record.state.reply?.id;
      const start = await findReplyStart(server.log, session);
      if (start.found) after = start.after;
      else {
        // The log no longer has (or never had) the reply's start: begin with the reply as saved.
        after = await server.log.lastId(session);
        const saved = replyId ? record.state.context.findLast((m: Msg) => m.id === replyId) : undefined;
        if (saved)
          prelude = [
            {
              type: 'REPLY_SNAPSHOT',
              replyId: saved.id,
              message: saved,
              createdAt: new Date().toISOString(),
            },
          ];
      }
    }
    return server.follow(c, {
      session,
      after,
      isLast: () => false,
      idle: async () => (await store.getLease(userId, agentId, sessionId)) === null,
      ...(prelude ? { prelude } : {}),
    });
  });
}

/**
 * Where the latest reply starts in the log: the newest `REPLY_START` or `REPLY_SNAPSHOT` (a resumed reply
 * has no new `REPLY_START`; a snapshot stands for everything before it). `after` is the entry before it
 * (`null`: the start is the oldest entry).
 */
async function findReplyStart(
  log: EventLog,
  session: SessionKey,
): Promise<{ found: true; after: string | null } | { found: false }> {
  let before: string | null = null;
  let found = false;
  for (let scanned = 0; ; ) {
    const page = await log.readBackward(session, before, 500);
    for (const { id, event } of page) {
      if (found) return { found: true, after: id };
      if (event.type === 'REPLY_START' || event.type === 'REPLY_SNAPSHOT') found = true;
    }
    if (page.length < 500) return found ? { found: true, after: null } : { found: false };
    scanned += page.length;
    if (!found && scanned >= SCAN_LIMIT) return { found: false };
    before = page[page.length - 1]!.id;
  }
}
