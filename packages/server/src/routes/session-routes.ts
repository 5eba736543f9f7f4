import { AgentkitError, newId, type Msg } from '@agentkit/core';
import type { Hono } from 'hono';
import type { ServerContext, ServerVariables } from '../agent-server-options';
import { CreateSessionBody, MessagesQuery, PageQuery } from '../schemas';
import { sessionView } from '../session-view';

const S = '/agents/:agentId/sessions';
const ONE = `${S}/:sessionId`;

/** Sessions: create, list, status, delete, messages. */
export function registerSessionRoutes(
  app: Hono<{ Variables: ServerVariables }>,
  server: ServerContext,
): void {
  const { store } = server.options;

  server.routes.push({
    method: 'post',
    path: S,
    summary: 'Create a session (a random id unless one is given)',
    body: CreateSessionBody,
    responses: {
      201: 'The session',
      400: 'Bad body',
      401: 'No credentials',
      404: 'No such agent',
      409: 'It exists',
    },
  });
  app.post(S, async (c) => {
    const { userId, agentId } = server.session(c);
    const body = await server.body(c, CreateSessionBody);
    const sessionId = body.sessionId ?? newId();
    const record = await store.upsertSession(userId, agentId, sessionId, {
      expectedVersion: 0,
      ...(body.metadata ? { metadata: body.metadata as never } : {}),
    });
    return c.json(sessionView(record, null), 201);
  });

  server.routes.push({
    method: 'get',
    path: S,
    summary: "The user's sessions with the agent, newest first, a page at a time",
    query: PageQuery,
    responses: {
      200: '{ sessions, cursor, skipped }',
      400: 'Bad query',
      401: 'No credentials',
      404: 'No such agent',
    },
  });
  app.get(S, async (c) => {
    const { userId, agentId } = server.session(c);
    const q = server.query(c, PageQuery);
    const page = await store.listSessions(userId, agentId, {
      limit: q.limit ?? 50,
      ...(q.cursor ? { cursor: q.cursor } : {}),
    });
    return c.json(page);
  });

  server.routes.push({
    method: 'get',
    path: ONE,
    summary: 'A session and its status: idle, running, paused (with the calls it awaits) or failed',
    responses: { 200: 'The session', 401: 'No credentials', 404: 'No such session' },
  });
  app.get(ONE, async (c) => {
    const key = server.session(c);
    const [record, lease] = await Promise.all([
      store.getSession(key.userId, key.agentId, key.sessionId),
      store.getLease(key.userId, key.agentId, key.sessionId),
    ]);
    if (!record) throw notFound();
    return c.json(sessionView(record, lease));
  });

  server.routes.push({
    method: 'delete',
    path: ONE,
    summary: 'Delete a session and its event log',
    responses: { 204: 'Deleted', 401: 'No credentials', 404: 'No such session', 409: 'A reply is running' },
  });
  app.delete(ONE, async (c) => {
    const key = server.session(c);
    const deleted = await store.deleteSession(key.userId, key.agentId, key.sessionId);
    if (!deleted) throw notFound();
    await server.log.delete(key);
    return c.body(null, 204);
  });

  server.routes.push({
    method: 'get',
    path: `${ONE}/messages`,
    summary: 'The messages of a session, newest page first (pass `cursor` back as `before` for older ones)',
    query: MessagesQuery,
    responses: {
      200: '{ messages, cursor, summary }',
      400: 'Bad query',
      401: 'No credentials',
      404: 'No such session',
    },
  });
  app.get(`${ONE}/messages`, async (c) => {
    const key = server.session(c);
    const q = server.query(c, MessagesQuery);
    const record = await store.getSession(key.userId, key.agentId, key.sessionId);
    if (!record) throw notFound();
    const context = record.state.context;
    let end = context.length;
    if (q.before !== undefined) {
      end = context.findIndex((m) => m.id === q.before);
      if (end < 0)
        throw new AgentkitError(
          'INVALID_INPUT',
          `No message '${q.before}' in this session (it may have been compressed).`,
        );
    }
    const start = Math.max(0, end - (q.limit ?? 50));
    const messages: Msg[] = context.slice(start, end);
    return c.json({
      messages,
      cursor: start > 0 ? messages[0]!.id : null,
      summary: record.state.summary,
    });
  });
}

function notFound(): AgentkitError {
  return new AgentkitError('NOT_FOUND', 'There is no such session.');
}
