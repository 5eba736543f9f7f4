import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

// The shape of core, guarded in CI: the reply loop keeps the orchestration only (each turn has its own
// file), and no source file quietly grows into the next 1,000-line module. A file that needs more room is
// split, or gets its own budget here with the reason. Import cycles are Biome's `noImportCycles` (lint).

const SRC = join(import.meta.dirname, '..', 'src');
/** Lines any source file (tests excluded) may have. */
const DEFAULT_BUDGET = 350;
const BUDGETS: Record<string, { lines: number; why: string }> = {
  'reply-loop.ts': {
    lines: 200,
    why: 'orchestration only: the turns live in model-turn, tool-turn and reply-ending, the state in reply-scope',
  },
  'events.ts': { lines: 500, why: 'the wire contract: every field documented' },
  'testing/session-store-conformance.ts': { lines: 900, why: 'one case per store rule, for store authors' },
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === '__fixtures__' ? [] : sourceFiles(path);
    return /\.ts$/.test(entry.name) && !/\.test(-d)?\.ts$/.test(entry.name) ? [path] : [];
  });
}

describe('the shape of core', () => {
  const files = sourceFiles(SRC).map((path) => ({
    name: relative(SRC, path).replaceAll('\\', '/'),
    lines: readFileSync(path, 'utf8').split('\n').length,
  }));

  it('finds the source files', () => {
    expect(files.map((f) => f.name)).toEqual(
      expect.arrayContaining(['reply-loop.ts', 'agent.ts', 'index.ts']),
    );
  });

  it('keeps every source file within its line budget', () => {
    const over = files
      .map((f) => ({ ...f, budget: BUDGETS[f.name]?.lines ?? DEFAULT_BUDGET }))
      .filter((f) => f.lines > f.budget)
      .map((f) => `${f.name}: ${f.lines} lines, budget ${f.budget}`);
    expect(over).toEqual([]);
  });

  it('lists budgets only for files that exist', () => {
    const names = new Set(files.map((f) => f.name));
    expect(Object.keys(BUDGETS).filter((name) => !names.has(name))).toEqual([]);
  });

  it('documents every field of the wire contract (events.ts) with TSDoc', () => {
    const lines = readFileSync(join(SRC, 'events.ts'), 'utf8').split('\n');
    let inInterface = false;
    const fields: string[] = [];
    const undocumented = lines.flatMap((line, i) => {
      if (/^export interface /.test(line)) inInterface = true;
      else if (line === '}') inInterface = false;
      const field = inInterface ? /^\s+(\w+)\??: /.exec(line)?.[1] : undefined;
      if (!field) return [];
      fields.push(field);
      return lines[i - 1]!.trim().endsWith('*/') ? [] : [`line ${i + 1}: ${field}`];
    });
    expect(fields.length).toBeGreaterThan(100);
    expect(undocumented).toEqual([]);
  });
});
