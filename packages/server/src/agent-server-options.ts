import type { Logger, SessionKey, SessionStore } from '@agentkit/core';
import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import type { FollowOptions } from './follow-log';
import type { RouteDoc } from './openapi';
import type { EventLog } from './event-log';
import type { AgentFactory } from './run-reply';
import type { ReplyRunner } from './runner';

/**
 * Adds routes to the server (e.g. a front-end protocol such as the AI SDK's UI message stream or AG-UI):
 * called once with the app and the server's context, after authentication is in place, so its routes
 * see `c.get('userId')` and reuse the runner, the event log and the request checks.
 */
export type ServerExtension = (app: Hono<{ Variables: ServerVariables }>, server: ServerContext) => void;

/** An agent the server serves: its factory, or the factory with a description for `GET /agents`. */
export type AgentDefinition = AgentFactory | { build: AgentFactory; description?: string };

/** Options of {@link createAgentServer}. */
export interface AgentServerOptions {
  /** The agents served, by id (the `:agentId` of every route; 1–128 characters of `A-Za-z0-9_.~-`, not `.` or `..`). */
  agents: Record<string, AgentDefinition>;
  /** Where sessions live. Use a shared store (Redis) when several server processes serve the same sessions. */
  store: SessionStore;
  /**
   * Maps a request to the id of its user (sessions are kept per user), or `null`/`undefined` to refuse it
   * with 401. Required unless `development` is set: there is no default that lets anonymous users in.
   * @example authenticate: (c) => verifyToken(c.req.header('Authorization'))?.sub ?? null
   */
  authenticate?: (c: Context) => string | null | undefined | Promise<string | null | undefined>;
  /**
   * Single-user development mode: every request is this user (default `'dev'`), and requests are
   * accepted only from loopback addresses (`serveAgentServer` also refuses to bind anything else).
   */
  development?: boolean | { userId?: string };
  /**
   * The per-session event log clients follow. Default: in memory (one process). With several server
   * processes, use `RedisEventLog` from `@agentkit/server/redis`.
   */
  eventLog?: EventLog;
  /** What runs replies. Default: an `InProcessRunner` in this process. */
  runner?: ReplyRunner;
  /** How long a reply's session lease lasts between renewals (in-process runner). Default 30 000 ms. */
  leaseTtlMs?: number;
  limits?: {
    /** Largest request body, in bytes (`413` above). Default 1 MiB. */
    maxBodyBytes?: number;
    /** Replies one user may run at once in this process (`429` above, with `Retry-After`). Default 4. */
    maxRunningRepliesPerUser?: number;
    /** How often an idle event stream gets a heartbeat comment. Default 15 000 ms. */
    heartbeatMs?: number;
  };
  /** CORS for browsers on other origins. Off unless set. */
  cors?: { origin: string | string[]; credentials?: boolean; maxAge?: number };
  /** Where failures are reported (with the request id). Default `console`. */
  logger?: Logger;
  /** Extra routes: front-end protocols and the like (see {@link ServerExtension}). */
  extensions?: ServerExtension[];
}

/** Variables the server's middleware sets on each request. */
export interface ServerVariables {
  requestId: string;
  /** The authenticated user. */
  userId: string;
}

/**
 * What routes of the server (and of extensions, see `AgentServerOptions.extensions`) work with: the
 * options, the event log, the runner, the route list of the OpenAPI document, and helpers that validate
 * requests the way every route does.
 */
export interface ServerContext {
  options: AgentServerOptions;
  log: EventLog;
  runner: ReplyRunner;
  routes: RouteDoc[];
  /** The factory of an agent id, or `undefined`. */
  agent(agentId: string): AgentFactory | undefined;
  /** The session of a request: the authenticated user and the validated `:agentId`/`:sessionId`. */
  session(c: Context): SessionKey;
  /** Parses a JSON body (bounded depth) with a zod schema; throws `InvalidInputError` naming the field. */
  body<T extends z.ZodType>(c: Context, schema: T): Promise<z.infer<T>>;
  /** Parses the query with a zod schema; throws `InvalidInputError`. */
  query<T extends z.ZodType>(c: Context, schema: T): z.infer<T>;
  heartbeatMs: number;
  /** Streams the log as SSE (see `followLog`), ended cleanly when the server closes. */
  follow(
    c: Context,
    options: Omit<FollowOptions, 'shutdown' | 'track' | 'heartbeatMs' | 'log' | 'onError'>,
  ): Response;
}
