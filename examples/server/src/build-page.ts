import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** The page's files, built in memory. */
export interface PageAssets {
  html: string;
  js: string;
  css: string;
}

const PAGE_DIR = fileURLToPath(new URL('./page/', import.meta.url));

/**
 * Bundles `page/app.ts` (with `applyEvent` from `@agentkit/core`) and `page/style.css` with esbuild, in
 * memory: the page is rebuilt every time the server starts, so it always matches the server's packages.
 */
export async function buildPage(): Promise<PageAssets> {
  const result = await build({
    entryPoints: [`${PAGE_DIR}app.ts`, `${PAGE_DIR}style.css`],
    bundle: true,
    write: false,
    outdir: 'out',
    format: 'esm',
    platform: 'browser',
    // The workspace packages' sources, as the server runs them: the page's reducer is the server's.
    conditions: ['@agentkit/source'],
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
  });
  const output = (extension: string) => {
    const file = result.outputFiles.find((f) => f.path.endsWith(extension));
    if (!file) throw new Error(`esbuild produced no ${extension} file for the page.`);
    return file.text;
  };
  return {
    html: await readFile(`${PAGE_DIR}index.html`, 'utf8'),
    js: output('.js'),
    css: output('.css'),
  };
}
