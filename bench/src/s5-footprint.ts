import { execFileSync, spawnSync } from 'node:child_process';
import { lstatSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BENCH_DIR } from './bench-dir';
import { median } from './stats';

/** What each subject imports to build an agent. */
export const IMPORTS: Record<string, string[]> = {
  agentkit: ['@agentkit/core'],
  'ai-sdk': ['ai'],
  'openai-agents': ['@openai/agents'],
  langgraph: ['@langchain/langgraph', '@langchain/langgraph/prebuilt'],
};

function spawnMs(code: string): number {
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    cwd: BENCH_DIR,
    stdio: 'ignore',
  });
  const ms = performance.now() - t0;
  if (r.status !== 0) throw new Error(`import failed: ${code}`);
  return ms;
}

/** Milliseconds `await import(…)` of the specifiers takes, measured inside a fresh process. */
function inProcessMs(specs: string[]): number {
  const code = `const t = performance.now(); ${specs.map((s) => `await import('${s}');`).join(' ')} process.stdout.write(String(performance.now() - t));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    cwd: BENCH_DIR,
    encoding: 'utf8',
  });
  if (r.status !== 0) throw new Error(`import failed: ${specs.join(', ')}\n${r.stderr}`);
  return Number(r.stdout);
}

/**
 * S5, import, per subject and round, in fresh processes interleaved over `rounds` rounds: the wall time
 * of `node -e "import …"` minus that of `node -e ""` (noisy on a busy machine: two process start-ups), and
 * the time of the `await import(…)` itself measured inside the process.
 */
export function importTimes(rounds: number): {
  wall: Record<string, number[]>;
  inProcess: Record<string, number[]>;
} {
  const out: Record<string, number[]> = Object.fromEntries(Object.keys(IMPORTS).map((k) => [k, []]));
  const inProcess: Record<string, number[]> = Object.fromEntries(Object.keys(IMPORTS).map((k) => [k, []]));
  for (let i = 0; i < 2; i++) spawnMs(''); // warm the file cache
  for (const specs of Object.values(IMPORTS)) spawnMs(specs.map((s) => `import '${s}';`).join(''));
  for (let r = 0; r < rounds; r++) {
    const bare = median([spawnMs(''), spawnMs('')]);
    for (const [subject, specs] of Object.entries(IMPORTS)) {
      out[subject]!.push(spawnMs(specs.map((s) => `import '${s}';`).join('')) - bare);
      inProcess[subject]!.push(inProcessMs(specs));
    }
  }
  return { wall: out, inProcess };
}

function dirBytes(dir: string): number {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules') continue;
    const path = join(dir, entry.name);
    if (entry.isSymbolicLink()) continue;
    if (entry.isDirectory()) total += dirBytes(path);
    else total += lstatSync(path).size;
  }
  return total;
}

/** The folder of package `name` as resolved from the folder `from` (a package folder in the pnpm store). */
function packageDir(name: string, from: string): string | undefined {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    try {
      return realpathSync(candidate);
    } catch {}
    if (dirname(dir) === dir) return undefined;
  }
}

function containingNodeModules(pkgDir: string): string {
  const i = pkgDir.lastIndexOf('/node_modules/');
  return pkgDir.slice(0, i);
}

/**
 * Installed bytes of the packages and everything they depend on (dependencies and installed optional
 * dependencies; peer dependencies are counted only when listed in `roots`).
 */
export function installedBytes(roots: string[]): { bytes: number; packages: number } {
  const seen = new Set<string>();
  let bytes = 0;
  const visit = (dir: string) => {
    if (seen.has(dir)) return;
    seen.add(dir);
    bytes += dirBytes(dir);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<
      string,
      Record<string, string> | undefined
    >;
    for (const dep of [
      ...Object.keys(pkg.dependencies ?? {}),
      ...Object.keys(pkg.optionalDependencies ?? {}),
    ]) {
      const depDir = packageDir(dep, containingNodeModules(dir));
      if (depDir) visit(depDir);
    }
  };
  for (const root of roots) {
    const dir = packageDir(root, BENCH_DIR);
    if (!dir) throw new Error(`${root} is not installed`);
    visit(dir);
  }
  return { bytes, packages: seen.size };
}

/** `npm pack --dry-run` unpacked size of a workspace package (what installing it puts on disk). */
export function packedBytes(packageFolder: string): number {
  const json = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: join(BENCH_DIR, '..', 'packages', packageFolder),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return (JSON.parse(json) as Array<{ unpackedSize: number }>)[0]!.unpackedSize;
}
