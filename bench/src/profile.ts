/**
 * `pnpm -F @agentkit/bench profile '<job json>' [top]`: runs one bench job under `node --cpu-prof` and
 * prints the functions and lines with the most self time, mapped back to the TypeScript sources through
 * the packages' source maps (packages/core/src/…:line).
 */
import { mkdtempSync, readdirSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Job } from './child';
import { BENCH_DIR } from './bench-dir';
import { runChild } from './spawn-child';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  positionTicks?: Array<{ line: number; ticks: number }>;
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/** Decodes a source map's mappings into, per generated line, sorted [column, source, line] segments. */
function decodeMappings(mappings: string): Array<Array<[number, number, number]>> {
  const lines: Array<Array<[number, number, number]>> = [];
  let source = 0;
  let srcLine = 0;
  for (const line of mappings.split(';')) {
    const segs: Array<[number, number, number]> = [];
    let col = 0;
    for (const seg of line.split(',')) {
      if (!seg) continue;
      const values: number[] = [];
      let value = 0;
      let shift = 0;
      for (const ch of seg) {
        const digit = B64.indexOf(ch);
        value += (digit & 31) << shift;
        if (digit & 32) shift += 5;
        else {
          values.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = shift = 0;
        }
      }
      col += values[0]!;
      if (values.length >= 4) {
        source += values[1]!;
        srcLine += values[2]!;
        segs.push([col, source, srcLine]);
      }
    }
    lines.push(segs);
  }
  return lines;
}

const maps = new Map<string, { sources: string[]; lines: Array<Array<[number, number, number]>> } | null>();

/** `file:line` in the original sources for a generated position (0-based line and column). */
function original(url: string, line: number, column: number): string {
  if (!url.startsWith('file://')) return url || '(native)';
  const file = fileURLToPath(url);
  let map = maps.get(file);
  if (map === undefined) {
    map = null;
    if (existsSync(`${file}.map`)) {
      const raw = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[]; mappings: string };
      map = {
        sources: raw.sources.map((s) => resolve(dirname(file), s)),
        lines: decodeMappings(raw.mappings),
      };
    }
    maps.set(file, map);
  }
  const root = resolve(BENCH_DIR, '..');
  const short = (p: string) =>
    p.includes('/node_modules/.pnpm/') ? p.slice(p.lastIndexOf('/node_modules/') + 14) : relative(root, p);
  if (!map) return `${short(file)}:${line + 1}`;
  const segs = map.lines[line] ?? [];
  let best = segs[0];
  for (const s of segs) if (s[0] <= column) best = s;
  return best ? `${short(map.sources[best[1]]!)}:${best[2] + 1}` : `${short(file)}:${line + 1}`;
}

const job = JSON.parse(process.argv[2] ?? '') as Job;
const top = Number(process.argv[3] ?? 25);
const dir = mkdtempSync(join(tmpdir(), 'agentkit-prof-'));
await runChild(job, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))!;
const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as Profile;

const self = new Map<number, number>();
for (let i = 0; i < profile.samples.length; i++) {
  const id = profile.samples[i]!;
  self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
}
const total = [...self.values()].reduce((a, b) => a + b, 0);
const byFunction = new Map<string, number>();
const byLine = new Map<string, number>();
for (const node of profile.nodes) {
  const us = self.get(node.id) ?? 0;
  if (!us) continue;
  const { functionName, url, lineNumber, columnNumber } = node.callFrame;
  const key = `${functionName || '(anonymous)'}  ${original(url, lineNumber, columnNumber)}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  const ticks = node.positionTicks ?? [];
  const sum = ticks.reduce((a, t) => a + t.ticks, 0);
  for (const t of ticks) {
    const lineKey = original(url, t.line - 1, 0);
    byLine.set(lineKey, (byLine.get(lineKey) ?? 0) + (us * t.ticks) / sum);
  }
}
const print = (title: string, m: Map<string, number>) => {
  console.log(`\n${title} (self time, ${(total / 1000).toFixed(0)} ms sampled)`);
  for (const [k, us] of [...m].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`);
};
print('functions', byFunction);
print('lines', byLine);
console.log(`\nprofile: ${join(dir, file)}`);
