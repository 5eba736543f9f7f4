// A separate process writing to a FileSessionStore, driven by the tests.
//   increment <dir> <count> <tag>: adds <count> increments to plugins.counter with load–modify–save retries.
//   rewrite <dir>: rewrites one session forever (the test kills it with SIGKILL mid-write).
import { VersionConflictError } from '@agentkit/core';
import { FileSessionStore } from '../src/file-session-store';

const [mode, directory, countArg, tag] = process.argv.slice(2);
const store = new FileSessionStore({ directory: directory as string });

if (mode === 'increment') {
  let conflicts = 0;
  for (let i = 0; i < Number(countArg); i++) {
    for (;;) {
      const record = await store.getSession('u', 'a', 'counter');
      if (!record) throw new Error('missing session');
      const state = record.state;
      state.plugins.counter = ((state.plugins.counter as number) ?? 0) + 1;
      state.plugins.log = [...((state.plugins.log as string[]) ?? []), `${tag}-${i}`];
      try {
        await store.updateSessionState('u', 'a', 'counter', state, { expectedVersion: record.version });
        break;
      } catch (error) {
        if (!(error instanceof VersionConflictError)) throw error;
        conflicts++;
      }
    }
  }
  process.stdout.write(JSON.stringify({ conflicts }));
} else if (mode === 'rewrite') {
  const big = 'x'.repeat(200_000);
  for (let n = 0; ; n++) {
    const record = await store.getSession('u', 'a', 'crashy');
    const state = record!.state;
    state.plugins.n = n;
    state.plugins.payload = `${n}:${big}`;
    await store.updateSessionState('u', 'a', 'crashy', state);
    if (n === 0) process.stdout.write('writing\n');
  }
} else {
  throw new Error(`unknown mode ${mode}`);
}
