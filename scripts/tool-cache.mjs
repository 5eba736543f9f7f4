// The tool cache shared by scripts/toolchain.mjs and scripts/pack-check.mjs: packages from the npm
// registry (Node builds, pnpm) installed once each into $AGENTKIT_TOOLS, else
// $XDG_CACHE_HOME/agentkit-tools, else ~/.cache/agentkit-tools. Written for old Nodes (≥ 18).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

export const TOOLS =
  process.env.AGENTKIT_TOOLS ||
  join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'agentkit-tools');

export const say = (line) => process.stderr.write(`agentkit: ${line}\n`);

/** Ends the process with one line that says what to do. */
export function fail(line) {
  say(line);
  process.exit(1);
}

/**
 * `npm install`s one package into `$TOOLS/<folder>` (each tool in its own folder: a shared prefix
 * would prune the other one). Installs into a temporary folder and renames it, so an interrupted
 * download never looks installed.
 */
export function npmInstall(folder, spec, what) {
  const target = join(TOOLS, folder);
  const tmp = `${target}.tmp-${process.pid}`;
  say(`fetching ${what} from the npm registry into ${target} (once)…`);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(tmp, { recursive: true });
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const result = spawnSync(
    npm,
    [
      'install',
      '--no-save',
      '--no-audit',
      '--no-fund',
      '--no-update-notifier',
      '--no-package-lock',
      '--loglevel=error',
      '--prefix',
      tmp,
      spec,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'], shell: process.platform === 'win32' },
  );
  if (result.status !== 0) {
    rmSync(tmp, { recursive: true, force: true });
    fail(`could not install ${spec} with npm (see above); check that the npm registry is reachable.`);
  }
  rmSync(target, { recursive: true, force: true });
  renameSync(tmp, target);
  return target;
}

/**
 * The path of a Node binary of `version` for this platform, from the npm package `node-<platform>-<arch>`
 * (installed into the cache the first time). Not every release exists for every platform.
 */
export function cachedNode(version) {
  const pkg = `node-${process.platform}-${process.arch}`;
  const bin = (dir) => join(dir, 'node_modules', pkg, 'bin', 'node');
  let dir = join(TOOLS, `node-${version}`);
  if (!existsSync(bin(dir))) dir = npmInstall(`node-${version}`, `${pkg}@${version}`, `Node ${version}`);
  if (!existsSync(bin(dir))) fail(`${pkg}@${version} installed no node binary in ${dirname(bin(dir))}.`);
  return bin(dir);
}
