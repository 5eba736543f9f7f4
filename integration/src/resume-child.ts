/**
 * Resumes a paused session with a confirmation, as one of several processes doing the same at once.
 * argv: world JSON, the confirmed call (JSON). Prints `{ outcome }` or `{ code }` as one JSON line.
 */
import { AgentkitError, runSession, userConfirmResult } from '@agentkit/core';
import { bookkeeping, confirmingAgent, openStore, type World } from './world';

const world = JSON.parse(process.argv[2]!) as World;
const call = JSON.parse(process.argv[3]!) as { id: string; name: string; input: string };
const redis = bookkeeping();
const { store, close } = openStore(world);
// Start together: wait for the test's go signal.
await redis.blpop(`${world.prefix}:go:${process.pid}`, 10);
try {
  const result = await runSession({
    store,
    session: { userId: 'u', agentId: 'ops', sessionId: 's1' },
    agent: (state) => confirmingAgent(redis, world, state, { type: 'text', delta: 'Deployed.' }, 200),
    input: userConfirmResult([{ confirmed: true, toolCall: call }]),
  });
  console.log(JSON.stringify({ outcome: result.outcome, finishedReason: result.message.finishedReason }));
} catch (error) {
  console.log(JSON.stringify({ code: AgentkitError.isInstance(error) ? error.code : String(error) }));
} finally {
  await close();
  await redis.quit();
}
