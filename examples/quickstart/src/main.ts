/**
 * The quickstart demo, process 1: starts a reply that pauses for a confirmation, saves the session, and
 * starts process 2 (`resume.ts`), which loads the session and finishes the reply.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { awaitingToolCalls } from '@agentkit/core';

import { buildDemoAgent } from './build-demo-agent';
import { chooseModel } from './choose-model';
import { demoPaths, SESSION_KEY } from './demo-paths';
import { DEMO_TASK } from './demo-task';
import { openStore } from './open-store';
import { seedSandbox } from './seed-sandbox';
import { runDemoReply } from './run-demo-reply';
import { terminalSafe } from './terminal-safe';
import { Transcript } from './transcript';

const transcript = new Transcript(process.stdout);
const paths = demoPaths();
const { model, description } = chooseModel(process.env, { delayMs: process.stdout.isTTY ? 15 : 0 });
const storage = openStore(paths.sessions);
const { userId, agentId, sessionId } = SESSION_KEY;

transcript.line(`agentkit quickstart · process 1 (pid ${process.pid})`);
transcript.line(`  model:    ${description}`);
transcript.line(`  sessions: ${storage.description}`);
transcript.line(`  sandbox:  ${paths.sandbox}`);
transcript.line();

let paused = false;
try {
  await seedSandbox(paths.sandbox);
  await storage.store.deleteSession(userId, agentId, sessionId); // every run starts fresh

  transcript.line(`user › ${DEMO_TASK}`);
  transcript.line();
  // runSession: the session's lease, a fresh state, checkpoints around the sandbox tools, the save.
  const { message: msg, record: saved } = await runDemoReply({
    store: storage.store,
    agent: (state) => buildDemoAgent({ model, sandbox: paths.sandbox, state }),
    input: DEMO_TASK,
    metadata: { title: 'agentkit quickstart' },
    transcript,
  });
  if (msg.finishedReason === 'error') process.exitCode = 1;
  paused = awaitingToolCalls(saved.state).filter((c) => c.state === 'asking').length > 0;
  transcript.line();
  transcript.line(
    `💾 saved session '${sessionId}' (version ${saved.version}) — the reply is ${paused ? 'paused, waiting for a confirmation' : `over (${msg.finishedReason})`}`,
  );
} catch (error) {
  // Bad configuration, an unreachable store or a corrupt session: say what, without a stack trace.
  transcript.line(`✗ ${terminalSafe((error as Error)?.message ?? String(error))}`);
  process.exitCode = 1;
} finally {
  await storage.close().catch(() => {});
}

if (paused) {
  transcript.line('   process 1 exits here; a second process loads the session and resumes the reply.');
  transcript.line();
  // The child runs with this process's Node flags (tsx's loader, --conditions), so it runs the same way.
  const child = spawn(
    process.execPath,
    [...process.execArgv, fileURLToPath(new URL('./resume.ts', import.meta.url))],
    {
      stdio: 'inherit',
      env: process.env,
    },
  );
  const code = await new Promise<number>((resolve) => {
    child.on('error', (error) => {
      transcript.line(`could not start the second process: ${error.message}`);
      resolve(1);
    });
    child.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0)));
  });
  process.exitCode = code;
  if (code === 0) {
    transcript.line();
    transcript.line(`Done. The sandbox is ${paths.sandbox}; run the demo again to start over.`);
  }
}
