// The packages as users get them: every package is packed (`pnpm pack`, which turns workspace ranges into
// versions) and installed with npm into a fresh project outside the monorepo, next to the peers users bring
// (zod, openai, @google/genai, ioredis). Then, for each package: LICENSE, README and metadata shipped, no
// source maps or sources; core + one adapter within the installed-size budget; a consumer program that uses
// every package type-checks (strict, nodenext, exactOptionalPropertyTypes), compiles with tsc and runs with
// plain node — on this Node and on the oldest one the packages support. Run after `pnpm build`.
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cachedNode } from './tool-cache.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Installed bytes core plus one model adapter may take (without the provider's SDK). */
const INSTALLED_BUDGET = 500_000;
/** The oldest Node the packages support, checked by running the consumer on it (linux-x64 only). */
const MIN_NODE = '22.12.0';
const PEERS = { zod: '4.6.7', openai: '7.59.0', '@google/genai': '3.3.0', ioredis: '6.0.0' };

const problems = [];
const check = (ok, problem) => {
  if (!ok) problems.push(problem);
};
const run = (cmd, args, options = {}) =>
  execFileSync(cmd, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], ...options });
const sizeOf = (path) =>
  statSync(path).isDirectory()
    ? readdirSync(path).reduce((n, entry) => n + sizeOf(join(path, entry)), 0)
    : statSync(path).size;
const files = (dir, base = dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? files(join(dir, e.name), base) : [join(dir, e.name).slice(base.length + 1)],
  );

const work = mkdtempSync(join(tmpdir(), 'agentkit-pack-'));
try {
  const tarballs = join(work, 'tarballs');
  mkdirSync(tarballs);
  const packages = readdirSync(join(ROOT, 'packages')).map((dir) => {
    const manifest = JSON.parse(readFileSync(join(ROOT, 'packages', dir, 'package.json'), 'utf8'));
    run('pnpm', ['pack', '--pack-destination', tarballs], { cwd: join(ROOT, 'packages', dir) });
    return { dir, name: manifest.name, version: manifest.version };
  });
  console.log(`pack-check: packed ${packages.length} packages into ${tarballs}`);

  const consumer = join(work, 'consumer');
  mkdirSync(consumer);
  const tarball = (p) => join(tarballs, `${p.name.replace('@', '').replace('/', '-')}-${p.version}.tgz`);
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify(
      {
        name: 'agentkit-consumer',
        private: true,
        type: 'module',
        dependencies: {
          ...Object.fromEntries(packages.map((p) => [p.name, `file:${tarball(p)}`])),
          ...PEERS,
        },
        devDependencies: { typescript: '6.0.3', '@types/node': '24.10.1' },
      },
      null,
      2,
    ),
  );
  console.log('pack-check: npm install in a project outside the monorepo…');
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: consumer });

  // What each package ships.
  for (const p of packages) {
    const dir = join(consumer, 'node_modules', ...p.name.split('/'));
    const shipped = files(dir);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const licensed = shipped.includes('LICENSE');
    check(shipped.includes('README.md'), `${p.name}: no README.md in the tarball`);
    const lean = !shipped.some((f) => f.endsWith('.map') || f.startsWith('src/'));
    check(!JSON.stringify(manifest).includes('workspace:'), `${p.name}: a workspace: range was published`);
    const metadata = [
      manifest.license === 'MIT',
      typeof manifest.description === 'string' && manifest.description.length > 20,
      manifest.repository?.url === 'git+https://github.com/agentkit-dev/agentkit.git',
      manifest.repository?.directory === `packages/${p.dir}`,
      typeof manifest.homepage === 'string',
      typeof manifest.bugs?.url === 'string',
      Array.isArray(manifest.keywords) && manifest.keywords.length > 2,
    ].every(Boolean);
    check(licensed, `${p.name}: no LICENSE in the tarball`);
    check(
      metadata,
      `${p.name}: incomplete metadata (license, description, repository, homepage, bugs, keywords)`,
    );
    check(lean, `${p.name}: ships source maps or src/ (only dist and LICENSE belong in the tarball)`);
    p.bytes = sizeOf(dir);
  }
  const bytes = (name) => packages.find((p) => p.name === name).bytes;
  for (const adapter of ['@agentkit/model-openai', '@agentkit/model-google']) {
    const total = bytes('@agentkit/core') + bytes(adapter);
    console.log(`pack-check: @agentkit/core + ${adapter}: ${(total / 1000).toFixed(0)} kB installed`);
    check(
      total <= INSTALLED_BUDGET,
      `core + ${adapter} take ${total} bytes installed, over ${INSTALLED_BUDGET}`,
    );
  }

  // A program that uses every package as its README says, type-checked strictly and run with plain node.
  const source = readFileSync(join(ROOT, 'scripts', 'pack-consumer.ts'), 'utf8');
  writeFileSync(join(consumer, 'index.ts'), source);
  writeFileSync(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        module: 'nodenext',
        target: 'es2022',
        types: ['node'],
        skipLibCheck: false,
        outDir: 'out',
      },
      files: ['index.ts'],
    }),
  );
  try {
    run(join(consumer, 'node_modules', '.bin', 'tsc'), ['-p', '.'], { cwd: consumer });
  } catch (error) {
    problems.push(`the consumer program does not type-check:\n${error.stdout}${error.stderr}`);
  }
  const nodes = [process.execPath];
  if (process.platform === 'linux' && process.arch === 'x64') nodes.push(cachedNode(MIN_NODE));
  for (const node of nodes) {
    const version = run(node, ['-v']).trim();
    if (!existsSync(join(consumer, 'out', 'index.js'))) break;
    try {
      const out = run(node, [join(consumer, 'out', 'index.js')], { cwd: consumer, env: { ...process.env } });
      check(
        out.includes('consumer: all packages work'),
        `the consumer program on Node ${version} printed:\n${out}`,
      );
      console.log(`pack-check: the consumer program runs on Node ${version}`);
    } catch (error) {
      problems.push(`the consumer program failed on Node ${version}:\n${error.stdout}${error.stderr}`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
for (const problem of problems) console.log(`✗ ${problem}`);
console.log(
  `pack-check: ${problems.length === 0 ? 'every package installs, type-checks and runs' : `${problems.length} problems`}`,
);
process.exitCode = problems.length === 0 ? 0 : 1;
