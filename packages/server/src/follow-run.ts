import type { SessionKey } from '@agentkit/core';
import type { Context } from 'hono';
import type { ServerContext } from './agent-server-options';
import type { FollowOptions } from './follow-log';
import { InProcessRunner } from './in-process-runner';
import type { StartedRun } from './runner';

/**
 * The response that streams a run the server's runner started, from its first event to its `RUN_END`
 * (then the stream waits, briefly, until the session's lease is released, so a client that acts on the
 * end at once finds the session free). What `POST …/replies` answers with `Accept: text/event-stream`;
 * for a protocol extension, `render` writes the entries in its protocol (see `FollowOptions.render`).
 * @example
 * app.post('/agents/:agentId/my-protocol', async (c) => {
 *   const session = { ...server.session(c), sessionId: 'from-the-body' };
 *   const run = await server.runner.start({ session, input: 'Hi!' });
 *   return followRun(c, server, session, run, ({ id, event }) => [{ id, data: JSON.stringify(event) }]);
 * });
 */
export function followRun(
  c: Context,
  server: ServerContext,
  session: SessionKey,
  run: StartedRun,
  render?: FollowOptions['render'],
): Response {
  const { store } = server.options;
  const free = async () =>
    (await store.getLease(session.userId, session.agentId, session.sessionId)) === null;
  return server.follow(c, {
    session,
    after: run.after,
    isLast: (entry) => entry.event.type === 'RUN_END' && entry.event.runId === run.runId,
    settled: free,
    // A run of a process that stopped (killed) is continued by nobody here: do not wait for its end.
    ...(server.runner instanceof InProcessRunner ? { orphaned: free } : {}),
    ...(render ? { render } : {}),
  });
}
