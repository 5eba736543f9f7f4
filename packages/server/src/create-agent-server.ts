import { AgentkitError, ConfigError, InvalidInputError, jsonValueProblem } from '@agentkit/core';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { cors } from 'hono/cors';
import { requestId } from 'hono/request-id';
import type { z } from 'zod';
import type { AgentServerOptions, ServerContext, ServerVariables } from './agent-server-options';
import { InMemoryEventLog } from './in-memory-event-log';
import { InProcessRunner } from './in-process-runner';
import type { AgentFactory } from './run-reply';
import { followLog } from './follow-log';
import { openApiDocument, type RouteDoc } from './openapi';
import { problem, problemFor } from './problem';
import { registerEventRoutes } from './routes/event-routes';
import { registerReplyRoutes } from './routes/reply-routes';
import { registerSessionRoutes } from './routes/session-routes';
import { Id } from './schemas';

/** The Hono app of {@link createAgentServer}, with what it needs to shut down. */
export type AgentServer = Hono<{ Variables: ServerVariables }> & {
  /**
   * Stops taking replies (`503`), lets running ones finish for `graceMs` (default 10 s), then suspends the
   * rest at a safe point (saved unfinished: a later request with `input: null` continues them) and
   * interrupts whatever runs after `timeoutMs` (default 30 s). Call it on `SIGTERM`.
   */
  drain(options?: { graceMs?: number; timeoutMs?: number }): Promise<void>;
  /**
   * Drains, ends open event streams once they have sent what the log holds (clients reconnect with
   * `Last-Event-ID` elsewhere), then closes the event log the server created itself.
   */
  close(): Promise<void>;
  /** Whether the server runs in single-user development mode (loopback only). */
  readonly development: boolean;
};

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|::ffff:127\.\d+\.\d+\.\d+)$/;

/**
 * Serves agents over HTTP + Server-Sent Events, on web standards (Hono: Node via `serveAgentServer` from
 * `@agentkit/server/node`, Bun, Deno, Workers). Sessions are kept per authenticated user; a reply runs only
 * under its session's lease (a second one gets `409`); every event is appended to the event log before
 * any client sees it, so streams resume with `Last-Event-ID` and follow replies running in other
 * processes. Errors are `application/problem+json`; `GET /openapi.json` describes every route.
 * @example
 * const app = createAgentServer({
 *   agents: { helper: ({ state }) => new Agent({ name: 'helper', model, state }) },
 *   store: new InMemorySessionStore(),
 *   development: true,
 * });
 * serveAgentServer(app, { port: 3000 });
 */
export function createAgentServer(options: AgentServerOptions): AgentServer {
  const development = !!options.development;
  if (!options.authenticate && !development)
    throw new ConfigError(
      'createAgentServer needs `authenticate` (a request → user id), or `development: true` for local single-user use.',
      { field: 'authenticate' },
    );
  if (options.authenticate && development)
    throw new ConfigError('Pass either `authenticate` or `development`, not both.', { field: 'development' });
  if (!options.store) throw new ConfigError('createAgentServer needs a `store`.', { field: 'store' });
  const agents = new Map<string, AgentFactory>();
  for (const [id, definition] of Object.entries(options.agents ?? {})) {
    if (!Id.safeParse(id).success)
      throw new ConfigError(
        `Agent id '${id}' must be 1 to 128 characters from A-Z a-z 0-9 _ . ~ -, not '.' or '..'.`,
        {
          field: 'agents',
        },
      );
    agents.set(id, typeof definition === 'function' ? definition : definition.build);
  }
  if (agents.size === 0)
    throw new ConfigError('createAgentServer needs at least one agent.', { field: 'agents' });
  const devUser =
    typeof options.development === 'object' && options.development.userId
      ? options.development.userId
      : 'dev';
  const logger = options.logger ?? console;
  const ownsLog = !options.eventLog;
  const log = options.eventLog ?? new InMemoryEventLog();
  const runner =
    options.runner ??
    new InProcessRunner({
      store: options.store,
      log,
      agent: (id) => agents.get(id),
      logger,
      ...(options.leaseTtlMs !== undefined ? { leaseTtlMs: options.leaseTtlMs } : {}),
    });

  const app = new Hono<{ Variables: ServerVariables }>();
  app.use(requestId());
  app.onError((error, c) => {
    const response = problemFor(c, error);
    if (response.status === 500) logger.error(`agentkit-server: request ${c.get('requestId')} failed`, error);
    else if (response.status === 503)
      logger.warn(`agentkit-server: request ${c.get('requestId')}: ${(error as Error)?.message ?? error}`);
    return response;
  });
  app.notFound((c) => problem(c, 404, 'NOT_FOUND', 'There is no such route.'));
  if (options.cors)
    app.use(
      cors({
        origin: options.cors.origin,
        credentials: options.cors.credentials ?? false,
        ...(options.cors.maxAge !== undefined ? { maxAge: options.cors.maxAge } : {}),
        exposeHeaders: ['X-Request-Id', 'Retry-After'],
      }),
    );
  app.use(
    bodyLimit({
      maxSize: options.limits?.maxBodyBytes ?? 1024 * 1024,
      onError: (c) => problem(c, 413, 'PAYLOAD_TOO_LARGE', 'The request body is too large.'),
    }),
  );

  const routes: RouteDoc[] = [];
  const shutdown = new AbortController();
  const streams = new Set<Promise<void>>();
  routes.push({
    method: 'get',
    path: '/openapi.json',
    summary: 'This document',
    responses: { 200: 'OpenAPI 3.1' },
  });
  app.get('/openapi.json', (c) =>
    c.json(openApiDocument(routes, { title: 'agentkit agent server', version: '1' })),
  );

  app.use(async (c, next) => {
    if (development) {
      const remote = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming
        ?.socket?.remoteAddress;
      if (remote !== undefined && !LOOPBACK.test(remote))
        return problem(c, 403, 'FORBIDDEN', 'Development mode accepts requests from this machine only.');
      c.set('userId', devUser);
      return next();
    }
    let userId: string | null | undefined;
    try {
      userId = await options.authenticate!(c);
    } catch (error) {
      logger.error(`agentkit-server: authenticate failed for request ${c.get('requestId')}`, error);
      return problem(c, 500, 'INTERNAL', 'Authentication failed.');
    }
    if (typeof userId !== 'string' || userId === '')
      return problem(c, 401, 'UNAUTHORIZED', 'This request needs valid credentials.');
    c.set('userId', userId);
    return next();
  });

  const context: ServerContext = {
    options,
    log,
    runner,
    routes,
    agent: (id) => agents.get(id),
    session(c) {
      const agentId = c.req.param('agentId') ?? '';
      if (!agents.has(agentId)) throw new AgentkitError('NOT_FOUND', `There is no agent '${agentId}'.`);
      const sessionId = c.req.param('sessionId');
      if (sessionId !== undefined && !Id.safeParse(sessionId).success)
        throw new InvalidInputError(
          "The session id must be 1 to 128 characters from A-Z a-z 0-9 _ . ~ -, not '.' or '..'.",
        );
      return { userId: c.get('userId'), agentId, sessionId: sessionId ?? '' };
    },
    async body(c, schema) {
      let value: unknown;
      try {
        value = JSON.parse(await c.req.text());
      } catch {
        throw new InvalidInputError('The request body must be JSON.');
      }
      const deep = jsonValueProblem(value, 'body', true);
      if (deep) throw new InvalidInputError(`The request body is not usable: ${deep}.`);
      const parsed = schema.safeParse(value);
      if (!parsed.success)
        throw new InvalidInputError(`Invalid request body: ${describeIssues(parsed.error)}`);
      return parsed.data;
    },
    query(c, schema) {
      const parsed = schema.safeParse(c.req.query());
      if (!parsed.success) throw new InvalidInputError(`Invalid query: ${describeIssues(parsed.error)}`);
      return parsed.data;
    },
    heartbeatMs: options.limits?.heartbeatMs ?? 15_000,
    follow(c, follow) {
      return followLog(c, {
        ...follow,
        log,
        heartbeatMs: this.heartbeatMs,
        shutdown: shutdown.signal,
        track: (ended) => {
          streams.add(ended);
          ended.then(() => streams.delete(ended));
        },
        onError: (error) => {
          const id = c.get('requestId');
          // An unreachable log or store is expected trouble (the client reconnects); anything else is a bug.
          if (AgentkitError.isInstance(error) && error.code === 'STORE_CONNECTION')
            logger.warn(`agentkit-server: request ${id}: event stream ended: ${(error as Error).message}`);
          else logger.error(`agentkit-server: request ${id}: event stream failed`, error);
        },
      });
    },
  };

  routes.push({
    method: 'get',
    path: '/agents',
    summary: 'The agents served',
    responses: { 200: '{ agents }' },
  });
  app.get('/agents', (c) =>
    c.json({
      agents: Object.entries(options.agents).map(([id, d]) => ({
        id,
        description: typeof d === 'function' ? null : (d.description ?? null),
      })),
    }),
  );
  registerSessionRoutes(app, context);
  registerReplyRoutes(app, context);
  registerEventRoutes(app, context);
  for (const extension of options.extensions ?? []) extension(app, context);

  let drained: Promise<void> | undefined;
  const drain = (o?: { graceMs?: number; timeoutMs?: number }) => (drained ??= runner.drain(o));
  return Object.assign(app, {
    drain,
    async close() {
      await drain();
      shutdown.abort();
      await Promise.race([Promise.all(streams), new Promise((resolve) => setTimeout(resolve, 2_000))]);
      if (ownsLog) await log.close();
    },
    development,
  }) as AgentServer;
}

function describeIssues(error: z.ZodError): string {
  return error.issues
    .slice(0, 5)
    .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`)
    .join('; ');
}
