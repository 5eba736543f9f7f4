// Bundle-size budgets of @agentkit/core, checked by `pnpm size`: each bundle is built from the built ESM
// entry with esbuild (minified, tree-shaken, platform-neutral) and gzipped; the run fails above a budget.
// - the kernel: what an agent needs to reply — the Agent, tools, plugins, events and their reducer, state
//   parsing. An app that only runs agents bundles no more than this.
// - the main entry: everything `@agentkit/core` exports, the session layer (stores' contract, the
//   in-memory store, leases, runSession) included.
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const bundles = [
  {
    name: 'kernel',
    budget: 22 * 1024,
    contents:
      "export { Agent, defineTool, definePlugin, applyEvent, replayEvents, parseAgentState, createAgentState, userConfirmResult, externalExecutionResult, userInterrupt, awaitingToolCalls, getText, userMsg } from './dist/index.js';",
  },
  { name: 'main entry', budget: 26 * 1024, contents: "export * from './dist/index.js';" },
];

const kb = (n) => `${(n / 1024).toFixed(1)} kB`;
let over = false;
for (const { name, budget, contents } of bundles) {
  const result = await build({
    stdin: { contents, resolveDir: new URL('..', import.meta.url).pathname, loader: 'js' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform: 'neutral',
    write: false,
  });
  const code = result.outputFiles[0].contents;
  const gzip = gzipSync(code, { level: 9 }).length;
  console.log(
    `@agentkit/core ${name}: ${kb(code.length)} minified, ${kb(gzip)} min+gzip (budget ${kb(budget)})`,
  );
  if (gzip > budget) {
    console.error(`@agentkit/core ${name} is over its size budget by ${gzip - budget} bytes.`);
    over = true;
  }
}
if (over) process.exit(1);
