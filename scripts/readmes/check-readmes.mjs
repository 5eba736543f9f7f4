// Docs that cannot rot: every ```ts block of every README.md (root, packages/*, examples/*) is
// type-checked against the built packages (strict, module nodenext, once with and once without
// exactOptionalPropertyTypes), and the blocks marked runnable are run with tsx.
//
// A block may be preceded by an HTML comment (invisible on GitHub and npm) that says how to check it:
//
//   <!-- check: run -->                       run it (in a fresh temp dir as cwd, 60 s at most), on this
//                                             Node and on Node 22.12, the oldest the packages support
//   <!-- check: run
//   model: [textChunks('Paris.')]             run it, with createOpenAIModel / createGoogleModel
//   -->                                       answering from a ScriptedModel with these responses
//   <!-- check: continues -->                 the block goes on from the README's previous ts block
//   <!-- check:
//   import { Agent } from '@agentkit/core';   any other line is setup code put before the block
//   declare const agent: Agent;
//   -->
//
// Without a comment a block is type-checked only. Relative imports in a block are relative to its
// README's folder. Usage: node scripts/readmes/check-readmes.mjs [--verbose] [README paths…] (after
// `pnpm build`); --verbose prints what the runs printed.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { cachedNode } from '../tool-cache.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '../..');
/** Where a README's blocks are generated: next to it, so they resolve what its package resolves. */
const blockDir = (readme) =>
  resolve(readme) === join(ROOT, 'README.md')
    ? join(HERE, '.blocks')
    : join(dirname(readme), '.readme-check');
const ADAPTERS = {
  '@agentkit/model-openai': 'createOpenAIModel',
  '@agentkit/model-google': 'createGoogleModel',
};

/** The READMEs to check: the given ones, else the root's, every package's and every example's. */
function readmes(args) {
  if (args.length > 0) return args.map((a) => resolve(a));
  const inside = (dir) =>
    readdirSync(join(ROOT, dir), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => join(ROOT, dir, d.name, 'README.md'));
  return [join(ROOT, 'README.md'), ...inside('packages'), ...inside('examples')].filter((f) => {
    try {
      return readFileSync(f) !== undefined;
    } catch {
      return false;
    }
  });
}

/** The ts blocks of a README with their line numbers and check directives. */
function blocksOf(file) {
  const lines = readFileSync(file, 'utf8').split('\n');
  const blocks = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i].trim() !== '```ts') continue;
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end].trim() !== '```') end++;
    const block = {
      file,
      line: start + 1,
      code: lines.slice(start, end).join('\n'),
      run: false,
      continues: false,
    };
    block.setup = [];
    // The comment right before the fence (blank lines between are fine).
    let j = i - 1;
    while (j >= 0 && lines[j].trim() === '') j--;
    if (j >= 0 && lines[j].trim().endsWith('-->')) {
      let k = j;
      while (k >= 0 && !lines[k].includes('<!--')) k--;
      const comment = lines
        .slice(k, j + 1)
        .join('\n')
        .replace(/^\s*<!--/, '')
        .replace(/-->\s*$/, '');
      const match = /^\s*check:(.*)$/s.exec(comment);
      if (match) {
        const [first, ...rest] = match[1].split('\n');
        const flags = first.trim().split(/\s+/).filter(Boolean);
        block.run = flags.includes('run');
        block.continues = flags.includes('continues');
        for (const flag of flags)
          if (!['run', 'continues'].includes(flag))
            throw new Error(`${file}:${start}: unknown check flag '${flag}'`);
        for (const line of rest) {
          if (line.startsWith('model:')) block.model = line.slice('model:'.length).trim();
          else block.setup.push(line);
        }
      }
    }
    if (block.continues) {
      const previous = blocks.at(-1);
      if (!previous) throw new Error(`${file}:${start}: 'continues' but there is no earlier ts block`);
      block.setup = [...previous.setup, ...previous.code.split('\n'), ...block.setup];
      block.model ??= previous.model;
    }
    blocks.push(block);
    i = end;
  }
  return blocks;
}

/** Rewrites relative import specifiers (relative to the README) to be relative to the generated file. */
function rebase(code, readme) {
  return code.replace(/(from\s+|import\s*\(\s*)(['"])(\.{1,2}\/[^'"]+)\2/g, (_, head, quote, spec) => {
    let target = relative(blockDir(readme), resolve(dirname(readme), spec)).replaceAll('\\', '/');
    if (!target.startsWith('.')) target = `./${target}`;
    return `${head}${quote}${target}${quote}`;
  });
}

function write(dir, name, text) {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** Generates the block's file: setup, then the block; `export {}` makes every block a module. */
function generate(block, index) {
  const setup = block.setup.join('\n');
  const head = setup === '' ? '' : `${setup}\n`;
  const dir = blockDir(block.file);
  const text = rebase(`${head}${block.code}\nexport {};\n`, block.file);
  const name = `${relative(ROOT, block.file).replaceAll(/[/\\.]/g, '_')}_${block.line}`;
  block.offset = head === '' ? 0 : head.split('\n').length - 1;
  block.source = write(dir, `${name}.ts`, text);
  block.index = index;
  if (!block.run) return;
  // The run copy: the adapters' factories answer from a ScriptedModel when the block gives a script.
  let runText = text;
  if (block.model) {
    for (const [pkg, factory] of Object.entries(ADAPTERS)) {
      if (!text.includes(`'${pkg}'`)) continue;
      const stub = write(
        dir,
        `${name}.${factory}.ts`,
        [
          "import { ScriptedModel, textChunks, thinkingChunk, toolCallChunk, usageChunk } from '@agentkit/core/testing';",
          `export * from '${pkg}';`,
          `const responses = () => ${block.model};`,
          `export const ${factory} = (options?: { model?: string }) =>`,
          `  new ScriptedModel(responses(), { name: options?.model ?? 'scripted-model' });`,
          'void [textChunks, thinkingChunk, toolCallChunk, usageChunk];',
          '',
        ].join('\n'),
      );
      runText = runText.replaceAll(`'${pkg}'`, `'./${relative(dir, stub).replace(/\.ts$/, '.js')}'`);
    }
  }
  block.runSource = write(dir, `${name}.run.ts`, runText);
}

/** Type-checks every block, with and without exactOptionalPropertyTypes. Returns failures by block. */
function typecheck(blocks) {
  const failures = new Map();
  for (const exact of [false, true]) {
    const program = ts.createProgram({
      rootNames: blocks.map((b) => b.source),
      options: {
        strict: true,
        exactOptionalPropertyTypes: exact,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        target: ts.ScriptTarget.ES2022,
        lib: ['lib.es2023.d.ts', 'lib.dom.d.ts', 'lib.esnext.disposable.d.ts'],
        types: ['node'],
        skipLibCheck: true,
        noEmit: true,
        allowImportingTsExtensions: false,
      },
    });
    for (const d of ts.getPreEmitDiagnostics(program)) {
      const block = blocks.find((b) => d.file && resolve(d.file.fileName) === b.source);
      const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      const where = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line : 0;
      const text = `${exact ? '[exactOptionalPropertyTypes] ' : ''}${
        block && where >= block.offset
          ? `${relative(ROOT, block.file)}:${block.line + where - block.offset}`
          : d.file
            ? `${relative(ROOT, d.file.fileName)}:${where + 1} (setup)`
            : 'tsc'
      }: ${message}`;
      const key = block ?? 'other';
      failures.set(key, [...(failures.get(key) ?? []), text]);
    }
  }
  return failures;
}

/** The oldest Node the packages support: runnable blocks run on it too (where npm has its build). */
const MIN_NODE = '22.12.0';
const nodes = () => [
  process.execPath,
  ...(process.platform === 'linux' && process.arch === 'x64' ? [cachedNode(MIN_NODE)] : []),
];

/** Runs a block with tsx in a fresh temp dir, on `node`. Resolves to null or the failure. */
function runBlock(block, node) {
  const cwd = mkdtempSync(join(tmpdir(), 'agentkit-readme-'));
  const env = { ...process.env };
  for (const key of ['OPENAI_API_KEY', 'GEMINI_API_KEY', 'GOOGLE_API_KEY', 'OPENAI_BASE_URL'])
    delete env[key];
  return new Promise((done) => {
    const child = spawn(node, ['--import', import.meta.resolve('tsx'), block.runSource], {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      rmSync(cwd, { recursive: true, force: true });
      block.output = output;
      const on = node === process.execPath ? '' : ` on ${node}`;
      done(code === 0 ? null : `exited with ${signal ?? code}${on}:\n${output.trimEnd()}`);
    });
  });
}

const verbose = process.argv.includes('--verbose');
const files = readmes(process.argv.slice(2).filter((a) => a !== '--verbose'));
const dirs = [...new Set(files.map(blockDir))];
for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
const blocks = files.flatMap(blocksOf);
blocks.forEach(generate);
const failures = typecheck(blocks);
let passed = 0;
let failed = 0;
for (const block of blocks) {
  const where = `${relative(ROOT, block.file)}:${block.line}`;
  const problems = failures.get(block) ?? [];
  if (problems.length === 0 && block.run)
    for (const node of nodes()) {
      const problem = await runBlock(block, node);
      if (problem) problems.push(`${where}: ${problem}`);
    }
  if (problems.length === 0) {
    passed++;
    console.log(
      `✓ ${where} ${block.run ? `type-checks and runs (Node ${nodes().length > 1 ? `${process.versions.node}, ${MIN_NODE}` : process.versions.node})` : 'type-checks'}`,
    );
    if (verbose && block.output) console.log(`    ${block.output.trimEnd().replaceAll('\n', '\n    ')}`);
  } else {
    failed++;
    console.log(`✗ ${where}\n${problems.map((p) => `    ${p.replaceAll('\n', '\n    ')}`).join('\n')}`);
  }
}
for (const other of failures.get('other') ?? []) {
  failed++;
  console.log(`✗ ${other}`);
}
console.log(`README blocks: ${passed} passed, ${failed} failed`);
// Kept after a failure, to look at what was checked.
if (failed === 0) for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
process.exitCode = failed === 0 ? 0 : 1;
