#!/usr/bin/env node
// The one entry point of `npm run demo`, `npm test` and `.ci/run`. It needs only Node ≥ 18 and npm: when
// the running Node is older than the repository needs, it fetches Node 24 from the npm registry
// (`node-<platform>-<arch>`), and it fetches the pinned pnpm, both into a cache
// ($AGENTKIT_TOOLS, else $XDG_CACHE_HOME/agentkit-tools, else ~/.cache/agentkit-tools), then re-runs
// itself under them. Commands:
//
//   demo            install, build (quietly), run examples/quickstart
//   test [args…]    check Redis, install, build (quietly), run vitest with args
//   exec cmd [args] run a command with the toolchain's node and pnpm first on PATH (CI uses it)
//
// Written for old Nodes on purpose (no dependencies, nothing newer than Node 18 needs).
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { connect, isIP } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cachedNode, fail, npmInstall, say, TOOLS } from './tool-cache.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const ROOT_PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
/** The oldest Node the repository runs on (root `engines.node`, `>=X.Y`). */
const MIN_NODE = ROOT_PACKAGE.engines.node.replace(/^>=\s*/, '');
const PNPM_VERSION = ROOT_PACKAGE.packageManager.split('@')[1];
/** Node 24 builds published on npm, per platform (not every platform has every release). */
const NODE_PACKAGES = {
  'linux-x64': '24.22.3',
  'linux-arm64': '24.22.1',
  'darwin-x64': '24.18.1',
};

const atLeast = (version, min) => {
  const [a, b = 0, c = 0] = version.split('.').map(Number);
  const [x, y = 0, z = 0] = min.split('.').map(Number);
  return a !== x ? a > x : b !== y ? b > y : c >= z;
};

/** PATH with `dirs` first. */
function pathWith(...dirs) {
  return [...dirs, process.env.PATH ?? ''].join(delimiter);
}

/** Whether `name` is an executable on PATH (looked up, not run). */
function onPath(name) {
  const exts = process.platform === 'win32' ? ['.exe', '.cmd', ''] : [''];
  return (process.env.PATH ?? '')
    .split(delimiter)
    .some((dir) => dir && exts.some((ext) => existsSync(join(dir, name + ext))));
}

/** Re-runs this script under Node 24 from the cache when the running Node is too old. */
function ensureNode() {
  if (atLeast(process.versions.node, MIN_NODE)) return;
  const platform = `${process.platform}-${process.arch}`;
  const version = NODE_PACKAGES[platform];
  if (!version)
    fail(
      `Node ≥ ${MIN_NODE} is needed (this is ${process.version}) and npm has no Node 24 build for ${platform}: ` +
        'install Node 24 from https://nodejs.org (or with nvm, fnm, Homebrew) and run the command again.',
    );
  const node = cachedNode(version);
  const result = spawnSync(node, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], {
    stdio: 'inherit',
    env: { ...process.env, PATH: pathWith(dirname(node)) },
  });
  process.exit(result.status ?? 1);
}

/** Puts the pinned pnpm first on PATH (the one on PATH when it is that version, else from the cache). */
function ensurePnpm() {
  const found = spawnSync('pnpm', ['--version'], { encoding: 'utf8', shell: process.platform === 'win32' });
  if (found.status === 0 && found.stdout.trim() === PNPM_VERSION) return;
  let dir = join(TOOLS, `pnpm-${PNPM_VERSION}`);
  const bin = (d) => join(d, 'node_modules', '.bin');
  if (!existsSync(join(bin(dir), 'pnpm')))
    dir = npmInstall(`pnpm-${PNPM_VERSION}`, `pnpm@${PNPM_VERSION}`, `pnpm ${PNPM_VERSION}`);
  process.env.PATH = pathWith(bin(dir));
}

/**
 * Runs a command with its output captured; prints it only when the command fails. `onLine` sees each
 * line as it comes (for progress).
 */
function quiet(cmd, args, { onLine } = {}) {
  return new Promise((done) => {
    const child = spawn(cmd, args, {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      shell: process.platform === 'win32',
    });
    const chunks = [];
    let partial = '';
    const collect = (chunk) => {
      chunks.push(chunk);
      if (!onLine) return;
      const lines = (partial + chunk.toString()).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) onLine(line);
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.on('error', (error) => fail(`could not run ${cmd}: ${error.message}`));
    child.on('close', (code) => {
      if (code === 0) return done();
      process.stderr.write(Buffer.concat(chunks));
      fail(`\`${cmd} ${args.join(' ')}\` failed (its output is above).`);
    });
  });
}

/** A status line that rewrites itself on a terminal and prints sparingly elsewhere. */
function progress(label) {
  const tty = process.stderr.isTTY;
  const started = Date.now();
  let last = 0;
  let shown = '';
  return {
    update(detail) {
      const now = Date.now();
      if (detail === shown || (!tty && now - last < 5000)) return;
      shown = detail;
      last = now;
      if (tty) process.stderr.write(`\r\x1b[Kagentkit: ${label} ${detail}`);
      else say(`${label} ${detail}`);
    },
    done(detail) {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      if (tty) process.stderr.write('\r\x1b[K');
      say(`${detail} (${seconds} s)`);
    },
  };
}

async function installAndBuild() {
  const install = progress('installing dependencies…');
  install.update('');
  await quiet(
    'pnpm',
    [
      'install',
      '--frozen-lockfile',
      '--prefer-offline',
      '--reporter=append-only',
      '--config.confirmModulesPurge=false',
    ],
    {
      onLine(line) {
        const match = /Progress: resolved (\d+), reused (\d+), downloaded (\d+), added (\d+)/.exec(line);
        if (match) install.update(`${match[1]} resolved, ${match[3]} downloaded, ${match[4]} added`);
      },
    },
  );
  install.done('dependencies installed');
  const build = progress('building the packages…');
  build.update('');
  await quiet('pnpm', [
    'exec',
    'turbo',
    'run',
    'build',
    '--filter=./packages/*',
    '--output-logs=errors-only',
  ]);
  build.done('packages built');
}

/** Sends PING (after AUTH when the URL has a password; over TLS for rediss:) to a Redis; resolves to null or the problem. */
function pingRedis(url) {
  const { protocol, hostname, port, username, password } = new URL(url);
  const auth = password
    ? `AUTH ${username ? `${decodeURIComponent(username)} ` : ''}${decodeURIComponent(password)}\r\n`
    : '';
  return new Promise((done) => {
    const host = hostname.replace(/^\[|\]$/g, '');
    const secure = protocol === 'rediss:';
    const socket = (secure ? tlsConnect : connect)({
      host,
      port: Number(port || 6379),
      ...(isIP(host) ? {} : { servername: host }),
    });
    let reply = '';
    socket.setTimeout(2000, () => socket.destroy(new Error('no answer within 2 s')));
    socket.on(secure ? 'secureConnect' : 'connect', () => socket.write(`${auth}PING\r\n`));
    socket.on('data', (data) => {
      reply += data.toString();
      if (reply.includes('PONG') || reply.includes('-')) socket.end();
    });
    socket.on('close', () => done(reply.includes('+PONG') ? null : reply.trim() || 'no answer'));
    socket.on('error', (error) => done(error.message));
  });
}

/** The test suite's needs: the Redis binaries (cluster and frozen-server tests start their own) and a Redis. */
async function checkRedis() {
  const missing = ['redis-server', 'redis-cli'].filter((name) => !onPath(name));
  if (missing.length > 0)
    fail(
      `the tests need ${missing.join(' and ')} on PATH: install Redis ≥ 7 ` +
        '(Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis).',
    );
  const url = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
  const problem = await pingRedis(url);
  if (problem)
    fail(
      `the tests need a Redis at ${url} (${problem}): start one with ` +
        '`redis-server --daemonize yes --save "" --appendonly no`, or set REDIS_URL.',
    );
}

/** Runs a command in the repository with the toolchain on PATH, exiting with its code. */
function run(cmd, args) {
  const result = spawnSync(cmd, args, { cwd: ROOT, stdio: 'inherit', shell: process.platform === 'win32' });
  if (result.error) fail(`could not run ${cmd}: ${result.error.message}`);
  process.exit(result.status ?? 1);
}

const [command, ...rest] = process.argv.slice(2);
const commands = ['demo', 'test', 'exec'];
if (!commands.includes(command)) fail(`usage: node scripts/toolchain.mjs ${commands.join('|')} [args…]`);
// Before anything slow: a missing Redis fails at once.
if (command === 'test') await checkRedis();
ensureNode();
ensurePnpm();
Object.assign(process.env, {
  TURBO_TELEMETRY_DISABLED: '1',
  TURBO_NO_UPDATE_NOTIFIER: '1',
  DO_NOT_TRACK: '1',
});
if (command === 'exec') run(rest[0], rest.slice(1));
await installAndBuild();
if (command === 'demo') run('pnpm', ['--silent', '--filter', '@example/quickstart', 'start']);
else run('pnpm', ['exec', 'vitest', 'run', ...rest]);
