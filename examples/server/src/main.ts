/**
 * The playground: the quickstart's agent (its file tools, tasks and injection plugins) served over HTTP +
 * SSE by `@agentkit/server` in development mode on 127.0.0.1, with a web page at `/` to chat with it.
 */
import { fileURLToPath } from 'node:url';
import { createAgentServer } from '@agentkit/server';
import { serveAgentServer } from '@agentkit/server/node';
import { buildDemoAgent, DEMO_AGENT_NAME } from '@example/quickstart/src/build-demo-agent';
import { chooseModel } from '@example/quickstart/src/choose-model';
import { demoPaths } from '@example/quickstart/src/demo-paths';
import { openStore } from '@example/quickstart/src/open-store';
import { seedSandbox } from '@example/quickstart/src/seed-sandbox';
import { buildPage } from './build-page';
import { createPlaygroundApp } from './create-playground-app';
import { openEventLog } from './open-event-log';

const env = process.env;
const paths = demoPaths({
  ...env,
  AGENTKIT_DEMO_DIR: env.AGENTKIT_DEMO_DIR || fileURLToPath(new URL('../.agentkit-demo', import.meta.url)),
});
const port = Number(env.PORT || 3000);
// The scripted model waits this long before each chunk, so the page visibly streams.
const delayMs = Number(env.SCRIPTED_DELAY_MS ?? 40);
const { model, description } = chooseModel(env, { delayMs });
const storage = openStore(paths.sessions, env);
const events = openEventLog(env);

console.log('agentkit playground');
console.log(`  model:    ${description}`);
console.log(`  sessions: ${storage.description}`);
console.log(`  events:   ${events.description}`);
console.log(`  sandbox:  ${paths.sandbox}`);
try {
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new Error(`PORT must be a port number, not '${env.PORT}'.`);
  if (!Number.isFinite(delayMs) || delayMs < 0)
    throw new Error(`SCRIPTED_DELAY_MS must be a number of milliseconds, not '${env.SCRIPTED_DELAY_MS}'.`);
  await seedSandbox(paths.sandbox);
  const agentServer = createAgentServer({
    agents: {
      [DEMO_AGENT_NAME]: {
        description: 'Works in a sandbox folder with file tools; asks before it writes a file.',
        build: ({ state }) => buildDemoAgent({ model, sandbox: paths.sandbox, state }),
      },
    },
    store: storage.store,
    development: true,
    ...(events.eventLog ? { eventLog: events.eventLog } : {}),
  });
  const app = createPlaygroundApp(agentServer, await buildPage());
  const { url, server } = await serveAgentServer(app, {
    port,
    hostname: '127.0.0.1',
    drain: { graceMs: 2_000, timeoutMs: 5_000 },
  });
  server.once('close', () => void Promise.all([storage.close(), events.close()]).catch(() => {}));
  console.log(`  open:     ${url}/  (Ctrl-C stops)`);
} catch (error) {
  // A port in use, bad settings, an unreachable store: say what, without a stack trace.
  const code = (error as { code?: string })?.code;
  console.log(
    code === 'EADDRINUSE'
      ? `✗ port ${port} is in use: start with PORT=<another port> (0 picks a free one)`
      : `✗ ${(error as Error)?.message ?? String(error)}`,
  );
  await Promise.all([storage.close(), events.close()]).catch(() => {});
  process.exitCode = 1;
}
