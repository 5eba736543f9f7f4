import type { Logger, SessionStore } from '@agentkit/core';
import type { Context, Hono } from 'hono';
import type { ServerContext, ServerVariables } from './create-agent-server';
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
  /** The agents served, by id (the `:agentId` of every route; 1–128 characters of `A-Za-z0-9_.~-`). */
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
