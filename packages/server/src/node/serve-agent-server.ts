import { ConfigError } from '@agentkit/core';
import { type ServerType, serve } from '@hono/node-server';
import type { AgentServer } from '../create-agent-server';

/** Options of {@link serveAgentServer}. */
export interface ServeOptions {
  /** Default 3000; `0` picks a free port. */
  port?: number;
  /** Default `127.0.0.1` (loopback). Development mode refuses anything else. */
  hostname?: string;
  /**
   * Drain and close on `SIGTERM` and `SIGINT` (see `AgentServer.drain`), then exit. Default `true`; set
   * `false` when your own code handles signals.
   */
  handleSignals?: boolean;
  /** Passed to `drain` on a signal. */
  drain?: { graceMs?: number; timeoutMs?: number };
}

/** A running Node HTTP server for an {@link AgentServer}. */
export interface ServedAgentServer {
  server: ServerType;
  /** `http://host:port` it listens on. */
  url: string;
  /** Drains the agent server, then stops the HTTP server. Idempotent. */
  close(): Promise<void>;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '::1', 'localhost']);

/**
 * Serves an agent server on Node (`@hono/node-server`), waiting until it listens. Development mode binds
 * loopback only. On `SIGTERM`/`SIGINT` it stops taking replies, lets running ones finish or suspends them
 * at a safe point (their leases released, their state saved), then exits.
 * @example
 * const { url } = await serveAgentServer(app, { port: 3000 });
 * console.log(`listening on ${url}`);
 */
export async function serveAgentServer(
  app: AgentServer,
  options: ServeOptions = {},
): Promise<ServedAgentServer> {
  const hostname = options.hostname ?? '127.0.0.1';
  if (app.development && !LOOPBACK_HOSTS.has(hostname))
    throw new ConfigError(
      `Development mode serves loopback only (127.0.0.1, ::1, localhost), not '${hostname}': set up \`authenticate\` to serve others.`,
      { field: 'hostname' },
    );
  const { server, port } = await new Promise<{ server: ServerType; port: number }>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: options.port ?? 3000, hostname }, (info) =>
      resolve({ server: s, port: info.port }),
    );
    s.once('error', reject);
  });
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      // Still listening while draining: new replies get 503 (a load balancer retries elsewhere).
      await app.drain(options.drain);
      await app.close();
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      (server as { closeAllConnections?: () => void }).closeAllConnections?.();
      await stopped;
    })());
  if (options.handleSignals !== false) {
    const onSignal = () => {
      close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    };
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    server.once('close', () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
    });
  }
  const host = hostname.includes(':') ? `[${hostname}]` : hostname;
  return { server, url: `http://${host}:${port}`, close };
}
