/**
 * The quickstart demo, process 2: loads the session process 1 saved, answers the confirmation (asks on a
 * TTY, approves automatically otherwise or with `AUTO_APPROVE=1`), finishes the reply and saves it.
 */
import { awaitingToolCalls, userConfirmResult, type ConfirmResult } from '@agentkit/core';

import { buildDemoAgent } from './build-demo-agent';
import { chooseModel } from './choose-model';
import { confirmCall, confirmMode } from './confirm-call';
import { demoPaths, SESSION_KEY } from './demo-paths';
import { openStore } from './open-store';
import { runDemoReply } from './run-demo-reply';
import { terminalSafe } from './terminal-safe';
import { Transcript } from './transcript';

const transcript = new Transcript(process.stdout);
const paths = demoPaths();
const { model, description } = chooseModel(process.env, { delayMs: process.stdout.isTTY ? 15 : 0 });
const storage = openStore(paths.sessions);
const { userId, agentId, sessionId } = SESSION_KEY;

transcript.line(`agentkit quickstart · process 2 (pid ${process.pid})`);
transcript.line(`  model:    ${description}`);
transcript.line(`  sessions: ${storage.description}`);
try {
  const record = await storage.store.getSession(userId, agentId, sessionId);
  if (!record) {
    transcript.line(
      `No session '${sessionId}' in ${storage.description}: run the demo from the start (npm run demo).`,
    );
    process.exitCode = 1;
  } else {
    transcript.line(
      `  loaded:   session '${sessionId}' (version ${record.version}, ${record.state.context.length} messages)`,
    );
    transcript.line();
    const mode = confirmMode();
    let state = record.state;
    // A real model may ask again after the first answer: keep answering until the reply ends.
    for (
      let waiting = awaitingToolCalls(state).filter((c) => c.state === 'asking');
      waiting.length > 0;
      waiting = awaitingToolCalls(state).filter((c) => c.state === 'asking')
    ) {
      const answers: ConfirmResult[] = [];
      for (const call of waiting) answers.push(await confirmCall(call, mode, transcript));
      transcript.line();
      // runSession again: lease, load, resume with the answers, checkpoints, save.
      const { message, record: saved } = await runDemoReply({
        store: storage.store,
        agent: (loaded) => buildDemoAgent({ model, sandbox: paths.sandbox, state: loaded }),
        input: userConfirmResult(answers),
        transcript,
      });
      if (message.finishedReason === 'error') process.exitCode = 1;
      state = saved.state;
      transcript.line();
      transcript.line(`💾 saved session '${sessionId}' (version ${saved.version})`);
    }
  }
} catch (error) {
  // Bad configuration, an unreachable store or a corrupt session: say what, without a stack trace.
  transcript.line(`✗ ${terminalSafe((error as Error)?.message ?? String(error))}`);
  process.exitCode = 1;
} finally {
  await storage.close().catch(() => {});
}
