// A separate process using a FileSessionStore, driven by the tests. Every mode works on user 'u', agent 'a'.
//   increment <dir> <count> <tag>   adds <count> increments to plugins.counter with load–modify–save retries
//   churn <dir> <session>           leases, saves big states, releases, forever (the test kills it with SIGKILL)
//   stall <dir> <session> <mode> <ttlMs> [random]
//                                   saves 'stalled-<i>' entries to plugins.log, leased ('leased') or with
//                                   expectedVersion ('unleased'); without 'random' it stops itself (SIGSTOP)
//                                   right before the link of its 2nd save, else it saves until the test
//                                   stops it. Prints 'acked <entry>' per save and finally 'failed <code>'.
//   resume <dir> <session>          on a line on stdin, takes the session's lease and prints 'won' or the
//                                   error code; the winner saves under it and holds it until stdin closes
import fsp from 'node:fs/promises';
import { syncBuiltinESMExports } from 'node:module';
import { createInterface } from 'node:readline';
import { AgentkitError, type AgentState, VersionConflictError } from '@agentkit/core';
import { FileSessionStore } from '../src/file-session-store';

const [mode, directory, arg1, arg2, arg3, arg4] = process.argv.slice(2);
const store = new FileSessionStore({ directory: directory as string });
const say = (line: string) => process.stdout.write(`${line}\n`);
const codeOf = (error: unknown) => (AgentkitError.isInstance(error) ? error.code : String(error));

if (mode === 'increment') {
  let conflicts = 0;
  for (let i = 0; i < Number(arg1); i++) {
    for (;;) {
      const record = await store.getSession('u', 'a', 'counter');
      if (!record) throw new Error('missing session');
      const state = record.state;
      state.plugins.counter = ((state.plugins.counter as number) ?? 0) + 1;
      state.plugins.log = [...((state.plugins.log as string[]) ?? []), `${arg2}-${i}`];
      try {
        await store.updateSessionState('u', 'a', 'counter', state, { expectedVersion: record.version });
        break;
      } catch (error) {
        if (!(error instanceof VersionConflictError)) throw error;
        conflicts++;
      }
    }
  }
  say(JSON.stringify({ conflicts }));
} else if (mode === 'churn') {
  const session = arg1 as string;
  const big = 'x'.repeat(100_000);
  for (let round = 0; ; round++) {
    const { token } = await store.acquireLease('u', 'a', session, {
      ttlMs: 60_000,
      owner: `churn-${process.pid}`,
    });
    for (let i = 0; i < 3; i++) {
      const record = await store.getSession('u', 'a', session);
      const state = record!.state;
      const n = ((state.plugins.n as number | undefined) ?? -1) + 1;
      state.plugins.n = n;
      state.plugins.payload = `${n}:${big}`;
      await store.updateSessionState('u', 'a', session, state, {
        leaseToken: token,
        expectedVersion: record!.version,
      });
      if (round === 0 && i === 0) say('writing');
    }
    if (round % 2 === 0)
      await store.upsertSession('u', 'a', session, { metadata: { round }, leaseToken: token });
    await store.releaseLease('u', 'a', session, token);
  }
} else if (mode === 'stall') {
  const session = arg1 as string;
  const leased = arg2 === 'leased';
  const random = arg4 === 'random';
  let saves = 0;
  if (!random) {
    // Stop this process right before the link that would publish the 2nd save: the worst moment, after
    // every check has passed. The store imports `link` from node:fs/promises; patch it there.
    const link = fsp.link;
    (fsp as { link: typeof link }).link = async (from, to) => {
      if (saves === 1 && String(to).includes(`/_${session}/`) && String(to).endsWith('.json')) {
        say('stalling');
        process.kill(process.pid, 'SIGSTOP');
      }
      return link(from, to);
    };
    syncBuiltinESMExports();
  }
  const token = leased
    ? (await store.acquireLease('u', 'a', session, { ttlMs: Number(arg3), owner: 'staller' })).token
    : undefined;
  try {
    for (; saves < 200; saves++) {
      const record = await store.getSession('u', 'a', session);
      const state = record!.state as AgentState;
      const entry = `stalled-${saves + 1}`;
      state.plugins.log = [...(state.plugins.log as string[]), entry];
      say(`saving ${entry}`);
      await store.updateSessionState('u', 'a', session, state, {
        expectedVersion: record!.version,
        ...(token === undefined ? {} : { leaseToken: token }),
      });
      say(`acked ${entry}`);
    }
    say('failed nothing');
  } catch (error) {
    say(`failed ${codeOf(error)}`);
  }
} else if (mode === 'resume') {
  const session = arg1 as string;
  const lines = createInterface({ input: process.stdin });
  const iterator = lines[Symbol.asyncIterator]();
  say('ready');
  await iterator.next(); // "go"
  try {
    const { token } = await store.acquireLease('u', 'a', session, {
      ttlMs: 60_000,
      owner: `p${process.pid}`,
    });
    const record = await store.getSession('u', 'a', session);
    const state = record!.state;
    state.plugins.resumedBy = process.pid;
    await store.updateSessionState('u', 'a', session, state, {
      leaseToken: token,
      expectedVersion: record!.version,
    });
    say('won');
    await iterator.next(); // stdin closes: done
    await store.releaseLease('u', 'a', session, token);
  } catch (error) {
    say(codeOf(error));
  }
  lines.close();
} else {
  throw new Error(`unknown mode ${mode}`);
}
