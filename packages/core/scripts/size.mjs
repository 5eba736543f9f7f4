// Bundle-size budget of @agentkit/core: bundles the built ESM entry with esbuild (minified, tree-shaken
// from `import * as core`), gzips it, and fails above the budget written in the README.
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const BUDGET_GZIP_BYTES = 20 * 1024;

const result = await build({
  stdin: {
    contents: "export * from './dist/index.js';",
    resolveDir: new URL('..', import.meta.url).pathname,
    loader: 'js',
  },
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'neutral',
  write: false,
});
const code = result.outputFiles[0].contents;
const gzip = gzipSync(code, { level: 9 }).length;
const kb = (n) => `${(n / 1024).toFixed(1)} kB`;
console.log(
  `@agentkit/core: ${kb(code.length)} minified, ${kb(gzip)} min+gzip (budget ${kb(BUDGET_GZIP_BYTES)})`,
);
if (gzip > BUDGET_GZIP_BYTES) {
  console.error(`@agentkit/core is over its size budget by ${gzip - BUDGET_GZIP_BYTES} bytes.`);
  process.exit(1);
}
