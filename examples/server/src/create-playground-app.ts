import type { AgentServer, ServerVariables } from '@agentkit/server';
import { Hono } from 'hono';
import { secureHeaders } from 'hono/secure-headers';
import type { PageAssets } from './build-page';

/**
 * One Hono app for the playground: the agent server's routes under `/api`, the page at `/`. The page
 * loads only its own script and stylesheet (a strict Content-Security-Policy: no inline code, no other
 * origin). It drains and closes like the agent server, so `serveAgentServer` can serve it.
 */
export function createPlaygroundApp(agentServer: AgentServer, page: PageAssets): AgentServer {
  const app = new Hono<{ Variables: ServerVariables }>();
  app.use(
    secureHeaders({
      strictTransportSecurity: false, // plain HTTP on loopback
      contentSecurityPolicy: {
        defaultSrc: ["'none'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        connectSrc: ["'self'"],
        imgSrc: ["'self'"],
        baseUri: ["'none'"],
        formAction: ["'none'"],
        frameAncestors: ["'none'"],
      },
    }),
  );
  app.route('/api', agentServer);
  app.get('/', (c) => c.html(page.html));
  app.get('/app.js', (c) => c.body(page.js, 200, { 'Content-Type': 'text/javascript; charset=utf-8' }));
  app.get('/favicon.ico', (c) => c.body(null, 204));
  app.get('/style.css', (c) => c.body(page.css, 200, { 'Content-Type': 'text/css; charset=utf-8' }));
  return Object.assign(app, {
    drain: (options?: Parameters<AgentServer['drain']>[0]) => agentServer.drain(options),
    close: () => agentServer.close(),
    development: agentServer.development,
  });
}
