/**
 * `pnpm bench` (full) and `pnpm bench:quick`: runs every scenario of issue 8, each measurement in a
 * fresh process, subjects interleaved (A B C … A B C …) over rounds; prints the tables and, in full
 * mode, writes bench/RESULTS.md.
 */
import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, platform, release, totalmem } from 'node:os';
import { join } from 'node:path';
import type { Job } from './child';
import type { SetupSubject } from './plugin-setup';
import { importTimes, installedBytes, packedBytes } from './s5-footprint';
import { BENCH_DIR } from './bench-dir';
import { runChild } from './spawn-child';
import { type Summary, summarize } from './stats';
import { OTEL_SUBJECTS, PEERS, SUBJECTS as SUBJECTS_ALL, type SubjectId } from './subjects/index';
import { checkpointConfig, checkpointSections, measureCheckpoint } from './checkpoint-scenario';
import { measureServer, serverConfig, serverSections } from './server-scenario';

const args = process.argv.slice(2);
const reportOnly = args.includes('--report');
const quick = args.includes('--quick');
const only = args
  .find((a) => a.startsWith('--only='))
  ?.slice(7)
  .split(',');
const wants = (id: string) => !only || only.includes(id);
// `--subjects=agentkit,agentkit+plugins`: measure only these (a before/after of agentkit alone); prints only.
const pickedSubjects = args
  .find((a) => a.startsWith('--subjects='))
  ?.slice(11)
  .split(',');
for (const s of pickedSubjects ?? [])
  if (!(SUBJECTS_ALL as readonly string[]).includes(s)) throw new Error(`unknown subject '${s}'`);
const SUBJECTS = SUBJECTS_ALL.filter((s) => !pickedSubjects || pickedSubjects.includes(s));
/** SETUP's subjects: no plugins, the three plugins made per agent, and one set of them shared by all agents. */
const SETUP_SUBJECTS: readonly SetupSubject[] = ['agentkit', 'agentkit+plugins', 'agentkit+shared-plugins'];

let config = quick
  ? {
      s1Rounds: 1,
      ks: [3, 10],
      warmupMs: 100,
      measureMs: 100,
      s2Rounds: 1,
      s2Turns: 40,
      s3Rounds: 1,
      s3Deltas: 2000,
      s4Rounds: 1,
      s4Sessions: 100,
      s5Rounds: 3,
      s7Reps: 50,
      s8Reps: 50,
      s9MeasureMs: 2000,
      s9Reps: 100,
      ctxTurns: 60,
      setupRounds: 1,
      setupAgents: 100,
      otelRounds: 1,
    }
  : {
      s1Rounds: 5,
      ks: [10, 100],
      warmupMs: 1000,
      measureMs: 1000,
      s2Rounds: 3,
      s2Turns: 200,
      s3Rounds: 5,
      s3Deltas: 20_000,
      s4Rounds: 2,
      s4Sessions: 1000,
      s5Rounds: 20,
      s7Reps: 500,
      s8Reps: 500,
      s9MeasureMs: 8000,
      s9Reps: 500,
      ctxTurns: 500,
      setupRounds: 3,
      setupAgents: 500,
      otelRounds: 7,
    };

const started = Date.now();
const log = (msg: string) =>
  process.stderr.write(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)}s] ${msg}\n`);

type Results = Record<string, Record<string, number[]>>; // cell -> subject -> values over rounds

/** Runs `jobs(subject)` for every subject, interleaved over `rounds`, collecting `field`s. */
async function interleaved<S extends string = SubjectId>(
  name: string,
  rounds: number,
  subjects: readonly S[],
  job: (subject: S) => Job,
  fields: string[],
): Promise<Record<string, Record<string, number[]>>> {
  const out: Record<string, Record<string, number[]>> = Object.fromEntries(fields.map((f) => [f, {}]));
  for (let r = 0; r < rounds; r++) {
    // Rotate the starting subject each round so no subject always runs first.
    const order = subjects.map((_, i) => subjects[(i + r) % subjects.length]!);
    for (const subject of order) {
      log(`${name} round ${r + 1}/${rounds}: ${subject}`);
      const result = await runChild(job(subject));
      for (const f of fields) (out[f]![subject] ??= []).push(Number(result[f]));
    }
  }
  return out;
}

let commit = '?';
try {
  commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: BENCH_DIR, encoding: 'utf8' }).trim();
  const dirty = execFileSync('git', ['status', '--porcelain', '--', '../packages'], {
    cwd: BENCH_DIR,
    encoding: 'utf8',
  }).trim();
  if (dirty) commit += ' with uncommitted changes in packages/';
} catch {}
// One JSON line per full run, appended: the history of runs (the last line is the latest).
const RAW = join(BENCH_DIR, 'results.jsonl');
let results: Results = {};
let extra: Record<string, Record<string, number | string>> = {};
let date = new Date().toISOString();
let durationS = 0;
let load = [loadavg()[0]!];
if (reportOnly) {
  // Regenerate RESULTS.md from the last full run's raw numbers (e.g. after editing FINDINGS.md).
  ({ results, extra, date, durationS, config, load, commit } = JSON.parse(
    readFileSync(RAW, 'utf8').trim().split('\n').pop()!,
  ));
} else {
  if (wants('S1'))
    for (const k of config.ks) {
      const r = await interleaved(
        `S1 K=${k}`,
        config.s1Rounds,
        SUBJECTS,
        (subject) => ({
          scenario: 'S1',
          subject,
          k,
          warmupMs: config.warmupMs,
          measureMs: config.measureMs,
        }),
        ['usPerIter'],
      );
      results[`S1.k${k}`] = r.usPerIter!;
    }
  if (wants('S2')) {
    const r = await interleaved(
      'S2',
      config.s2Rounds,
      SUBJECTS,
      (subject) => ({ scenario: 'S2', subject, turns: config.s2Turns, warmupMs: config.warmupMs }),
      ['earlyUs', 'lateUs', 'growth', 'heapMB'],
    );
    for (const [f, v] of Object.entries(r)) results[`S2.${f}`] = v;
  }
  if (wants('S3')) {
    const r = await interleaved(
      'S3',
      config.s3Rounds,
      SUBJECTS,
      (subject) => ({
        scenario: 'S3',
        subject,
        deltas: config.s3Deltas,
        warmupMs: config.warmupMs,
        measureMs: config.measureMs,
      }),
      ['deltasPerSec'],
    );
    results['S3.deltasPerSec'] = r.deltasPerSec!;
  }
  if (wants('S4')) {
    const r = await interleaved(
      'S4',
      config.s4Rounds,
      SUBJECTS.filter((s) => s !== 'agentkit+plugins'),
      (subject) => ({ scenario: 'S4', subject, sessions: config.s4Sessions, turns: 10 }),
      ['kBPerSession', 'messages'],
    );
    results['S4.kBPerSession'] = r.kBPerSession!;
    results['S4.messages'] = r.messages!;
    log('S4 message shapes');
    extra.S4SHAPES = await runChild({ scenario: 'S4SHAPES', sessions: config.s4Sessions, turns: 10 });
  }
  if (wants('S5')) {
    log('S5 import times');
    const times = importTimes(config.s5Rounds);
    results['S5.importMs'] = times.inProcess;
    results['S5.importWallMs'] = times.wall;
    log('S5 installed sizes');
    const core = packedBytes('core');
    const adapter = packedBytes('model-openai');
    extra.S5 = {
      agentkit: core + adapter,
      agentkitCore: core,
      agentkitAdapter: adapter,
      'ai-sdk': installedBytes(['ai']).bytes,
      'openai-agents': installedBytes(['@openai/agents']).bytes,
      langgraph: installedBytes(['@langchain/langgraph', '@langchain/core']).bytes,
    };
  }
  if (wants('S6OTEL')) {
    const r = await interleaved(
      'S6OTEL',
      config.otelRounds,
      OTEL_SUBJECTS,
      (subject) => ({ scenario: 'S2', subject, turns: config.s2Turns, warmupMs: config.warmupMs }),
      ['medianUs', 'lateUs', 'heapMB'],
    );
    for (const [f, v] of Object.entries(r)) results[`S6OTEL.${f}`] = v;
  }
  if (wants('S7')) {
    log('S7 redis');
    extra.S7 = await runChild({ scenario: 'S7', messages: 50, reps: config.s7Reps });
  }
  if (wants('S8')) {
    log('S8 redis leases');
    extra.S8 = await runChild({ scenario: 'S8', messages: 50, reps: config.s8Reps });
  }
  if (wants('S9')) {
    log('S9 queue workers');
    extra.S9 = await runChild({
      scenario: 'S9',
      workers: [1, 2, 4],
      concurrency: 2,
      measureMs: config.s9MeasureMs,
      overheadReps: config.s9Reps,
      modelMs: 50,
    });
  }
  // Issue 15's server (SRV) and issue 12's checkpoints (CKPT).
  if (wants('SRV')) {
    const c = serverConfig(quick);
    Object.assign(results, await measureServer(c, log));
    extra.SRV = { config: JSON.stringify(c) };
  }
  if (wants('CKPT')) {
    const c = checkpointConfig(quick);
    Object.assign(results, await measureCheckpoint(c, log));
    extra.CKPT = { config: JSON.stringify(c) };
  }
  if (wants('SETUP')) {
    const r = await interleaved<SetupSubject>(
      'SETUP',
      config.setupRounds,
      SETUP_SUBJECTS,
      (subject) => ({ scenario: 'SETUP', subject, agents: config.setupAgents, turns: 10 }),
      ['kBPerAgent', 'buildUs'],
    );
    results['SETUP.kBPerAgent'] = r.kBPerAgent!;
    results['SETUP.buildUs'] = r.buildUs!;
  }
  if (wants('CTX')) {
    log('plugin scale');
    extra.CTX = await runChild({ scenario: 'CTX', turns: config.ctxTurns, window: 10 });
  }
  durationS = Math.round((Date.now() - started) / 1000);
  load.push(loadavg()[0]!);
  if (!quick && !only && !pickedSubjects)
    appendFileSync(RAW, `${JSON.stringify({ date, commit, durationS, load, config, results, extra })}\n`);
}
log('done');

// ── report ──────────────────────────────────────────────────────────────────────────────────────

const sum = (cell: string, subject: string): Summary | undefined => {
  const v = results[cell]?.[subject];
  return v?.length ? summarize(v) : undefined;
};
const med = (cell: string, subject: string) => sum(cell, subject)?.median ?? Number.NaN;
const fmt = (x: number, digits = x >= 100 ? 0 : x >= 10 ? 1 : 2) =>
  Number.isFinite(x)
    ? x.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : '—';
const cellText = (cell: string, subject: string, digits?: number) => {
  const s = sum(cell, subject);
  if (!s) return '—';
  return s.n > 1
    ? `${fmt(s.median, digits)} (${fmt(s.min, digits)}–${fmt(s.max, digits)})`
    : fmt(s.median, digits);
};
/** The best peer for a cell: lowest, or highest when `higherIsBetter`. */
const bestPeer = (cell: string, higherIsBetter = false): { subject: string; value: number } => {
  let best = { subject: '—', value: higherIsBetter ? -Infinity : Infinity };
  for (const p of PEERS) {
    const v = med(cell, p);
    if (Number.isFinite(v) && (higherIsBetter ? v > best.value : v < best.value))
      best = { subject: p, value: v };
  }
  return best;
};
const ratio = (x: number, y: number) =>
  Number.isFinite(x) && Number.isFinite(y) && y !== 0 ? x / y : Number.NaN;
const times = (x: number) => (Number.isFinite(x) ? `×${fmt(x, x >= 10 ? 1 : 2)}` : '—');

interface Target {
  id: string;
  target: string;
  measured: string;
  pass: boolean | undefined;
}
const targets: Target[] = [];
const check = (id: string, target: string, measured: string, pass: boolean | undefined) =>
  targets.push({ id, target, measured, pass: Number.isNaN(pass as unknown as number) ? undefined : pass });

function table(head: string[], rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(head), line(head.map(() => '---')), ...rows.map(line)].join('\n');
}

const sections: string[] = [];

if (results['S1.k' + config.ks[0]]) {
  const [k1, k2] = config.ks as [number, number];
  const rows = SUBJECTS.map((s) => [
    s,
    cellText(`S1.k${k1}`, s),
    cellText(`S1.k${k2}`, s),
    times(ratio(med(`S1.k${k2}`, s), med(`S1.k${k1}`, s))),
    times(ratio(med(`S1.k${k1}`, s), bestPeer(`S1.k${k1}`).value)),
    times(ratio(med(`S1.k${k2}`, s), bestPeer(`S1.k${k2}`).value)),
  ]);
  sections.push(
    `### S1 — framework overhead per iteration (µs; one iteration = one model call and its tool call)\n\n` +
      table(
        [
          'subject',
          `K=${k1}`,
          `K=${k2}`,
          `K=${k2} / K=${k1}`,
          `vs best peer, K=${k1}`,
          `vs best peer, K=${k2}`,
        ],
        rows,
      ),
  );
  for (const k of config.ks) {
    const best = bestPeer(`S1.k${k}`);
    const v = med(`S1.k${k}`, 'agentkit');
    check(
      `S1 K=${k}`,
      `≤ 1/10 of the best peer (${best.subject} ${fmt(best.value)} µs → ≤ ${fmt(best.value / 10)})`,
      `${fmt(v)} µs (1/${fmt(best.value / v, 1)})`,
      v <= best.value / 10,
    );
  }
  const g = ratio(med(`S1.k${k2}`, 'agentkit'), med(`S1.k${k1}`, 'agentkit'));
  check(`S1 K=${k2} vs K=${k1}`, '≤ ×1.5', times(g), g <= 1.5);
}

if (results['S2.lateUs']) {
  const rows = SUBJECTS.map((s) => [
    s,
    cellText('S2.earlyUs', s),
    cellText('S2.lateUs', s),
    cellText('S2.growth', s, 2),
    cellText('S2.heapMB', s, 2),
    times(ratio(med('S2.lateUs', s), bestPeer('S2.lateUs').value)),
  ]);
  const n = config.s2Turns;
  sections.push(
    `### S2 — ${n} turns on one session (µs per turn; each turn = one tool call + an answer)\n\n` +
      table(
        [
          'subject',
          'turns 1–10',
          `turns ${n - 9}–${n}`,
          'late / early',
          `heap after ${n} turns (MB)`,
          'late vs best peer',
        ],
        rows,
      ),
  );
  const best = bestPeer('S2.lateUs');
  for (const s of ['agentkit', 'agentkit+plugins'] as const) {
    const growth = med('S2.growth', s);
    const late = med('S2.lateUs', s);
    const label = s === 'agentkit' ? 'S2' : 'S6 (S2 with plugins)';
    check(`${label} flat`, 'late ≤ ×1.2 of early', times(growth), growth <= 1.2);
    check(
      `${label} speed`,
      `late ≤ 1/10 of the best peer's late (${best.subject} ${fmt(best.value)} µs → ≤ ${fmt(best.value / 10)})`,
      `${fmt(late)} µs (1/${fmt(best.value / late, 1)})`,
      late <= best.value / 10,
    );
  }
}

if (results['S6OTEL.medianUs']) {
  const base = med('S6OTEL.medianUs', 'agentkit+plugins');
  const labels: Record<string, string> = {
    'agentkit+plugins': 'S6 (injection, context, structured-output)',
    'agentkit+plugins+otel': 'S6 + @agentkit/otel, no OpenTelemetry SDK',
    'agentkit+plugins+otel-sdk':
      'S6 + @agentkit/otel, SDK: batch span processor + in-memory exporter, meter provider',
  };
  const rows = OTEL_SUBJECTS.map((s) => [
    labels[s]!,
    cellText('S6OTEL.medianUs', s),
    cellText('S6OTEL.lateUs', s),
    cellText('S6OTEL.heapMB', s, 2),
    times(ratio(med('S6OTEL.medianUs', s), base)),
  ]);
  sections.push(
    `### S6 with OpenTelemetry — ${config.s2Turns} turns on one session (µs per turn; ${config.otelRounds} interleaved rounds)\n\n` +
      table(
        [
          'subject',
          'median of all turns',
          `turns ${config.s2Turns - 9}–${config.s2Turns}`,
          'heap (MB)',
          'vs S6',
        ],
        rows,
      ),
  );
  const noSdk = ratio(med('S6OTEL.medianUs', 'agentkit+plugins+otel'), base);
  check('S6 + otel, no SDK', '≤ ×1.05 of S6 (median µs per turn)', times(noSdk), noSdk <= 1.05);
  const withSdk = ratio(med('S6OTEL.medianUs', 'agentkit+plugins+otel-sdk'), base);
  check('S6 + otel with the SDK', 'reported', times(withSdk), undefined);
}

if (results['S3.deltasPerSec']) {
  const best = bestPeer('S3.deltasPerSec', true);
  const rows = SUBJECTS.map((s) => [
    s,
    cellText('S3.deltasPerSec', s, 0),
    times(ratio(med('S3.deltasPerSec', s), best.value)),
  ]);
  sections.push(
    `### S3 — streamed answer of ${config.s3Deltas.toLocaleString('en-US')} deltas (text deltas per second reaching the consumer)\n\n` +
      table(['subject', 'deltas/s', 'vs best peer'], rows),
  );
  const v = med('S3.deltasPerSec', 'agentkit');
  check(
    'S3',
    `≥ ×5 the best peer (${best.subject} ${fmt(best.value, 0)}/s → ≥ ${fmt(best.value * 5, 0)})`,
    `${fmt(v, 0)}/s (${times(v / best.value)})`,
    v >= best.value * 5,
  );
}

if (results['S4.kBPerSession']) {
  const bare = med('S4.kBPerSession', 'bare');
  const rows = SUBJECTS.filter((s) => s !== 'agentkit+plugins').map((s) => [
    s,
    cellText('S4.kBPerSession', s, 2),
    fmt(med('S4.messages', s), 0),
    times(ratio(med('S4.kBPerSession', s), bare)),
  ]);
  sections.push(
    `### S4 — ${config.s4Sessions.toLocaleString('en-US')} sessions of 20 messages held in memory (kB per session, heap delta after GC)\n\n` +
      table(['subject', 'kB / session', 'messages held', 'vs bare loop'], rows),
  );
  if (extra.S4SHAPES) {
    const rows = Object.entries(extra.S4SHAPES as Record<string, number>).map(([shape, kB]) => [
      shape,
      fmt(kB, 2),
      times(ratio(kB, bare)),
    ]);
    sections.push(
      "Where agentkit's bytes go: the same sessions, each message copied into richer shapes (one process; only the copies held).\n\n" +
        table(['shape of each message', 'kB / session', 'vs bare loop'], rows),
    );
  }
  // Issue 13's bar, in the same run: at most the OpenAI Agents SDK (the peer with a comparably rich item
  // model) and at most twice the AI SDK.
  const v = med('S4.kBPerSession', 'agentkit');
  const agents = med('S4.kBPerSession', 'openai-agents');
  const aiSdk = med('S4.kBPerSession', 'ai-sdk');
  check(
    'S4',
    `≤ openai-agents (${fmt(agents, 2)} kB) and ≤ ×2 ai-sdk (${fmt(aiSdk, 2)} → ${fmt(aiSdk * 2, 2)} kB)`,
    `${fmt(v, 2)} kB (${times(v / agents)} openai-agents, ${times(v / aiSdk)} ai-sdk)`,
    v <= agents && v <= aiSdk * 2,
  );
}

if (results['S5.importMs'] && extra.S5) {
  const mb = (b: unknown) => fmt(Number(b) / 1e6, 2);
  const rows = ['agentkit', ...PEERS].map((s) => [
    s,
    cellText('S5.importMs', s),
    cellText('S5.importWallMs', s),
    `${mb(extra.S5![s])} MB`,
  ]);
  sections.push(
    `### S5 — footprint\n\nImport: time of \`await import(…)\` measured inside a fresh \`node\` process, and the wall time of \`node -e "import …"\` minus \`node -e ""\` (ms, ${config.s5Rounds} interleaved rounds; the second is two process start-ups apart and noisy on a busy machine). ` +
      `Installed: agentkit = \`npm pack --dry-run\` unpacked size of @agentkit/core (${mb(extra.S5.agentkitCore)} MB) + @agentkit/model-openai (${mb(extra.S5.agentkitAdapter)} MB), without the \`openai\` SDK; ` +
      `peers = the package and its dependency closure as installed (peer dependencies such as zod not counted; LangGraph counts @langchain/core).\n\n` +
      table(
        ['subject', 'import (ms, in process)', 'process wall time over bare node (ms)', 'installed'],
        rows,
      ),
  );
  const best = bestPeer('S5.importMs');
  const v = med('S5.importMs', 'agentkit');
  check(
    'S5 import',
    `≤ 1/4 of the best peer (${best.subject} ${fmt(best.value)} ms → ≤ ${fmt(best.value / 4)})`,
    `${fmt(v)} ms (1/${fmt(best.value / v, 1)})`,
    v <= best.value / 4,
  );
  const size = Number(extra.S5.agentkit);
  check('S5 size', 'core + one adapter < 1 MB', `${mb(size)} MB`, size < 1e6);
}

if (extra.S7) {
  const s = extra.S7 as Record<string, number>;
  const r50 = s.kitP50! / s.jsonP50!;
  const r99 = s.kitP99! / s.jsonP99!;
  sections.push(
    `### S7 — session of ${s.messages} messages (${fmt(s.bytes! / 1024, 1)} kB of JSON) on Redis 127.0.0.1:6379, ${config.s7Reps} interleaved repetitions (µs per save + load)\n\n` +
      table(
        ['', 'p50', 'p99', 'ratio p50 / p99'],
        [
          [
            '@agentkit/storage-redis updateSessionState + getSession',
            fmt(s.kitP50!),
            fmt(s.kitP99!),
            `${times(r50)} / ${times(r99)} (vs raw + JSON)`,
          ],
          ['raw ioredis SET + GET, with JSON.stringify / JSON.parse', fmt(s.jsonP50!), fmt(s.jsonP99!), ''],
          [
            'raw ioredis SET + GET of the ready string',
            fmt(s.strP50!),
            fmt(s.strP99!),
            `${times(s.kitP50! / s.strP50!)} / ${times(s.kitP99! / s.strP99!)} (agentkit vs this)`,
          ],
        ],
      ),
  );
  check(
    'S7',
    '≤ ×1.5 raw SET/GET (p50, both sides serialising the same state)',
    `${times(r50)} (p99 ${times(r99)})`,
    r50 <= 1.5,
  );
}

if (extra.S8) {
  const s = extra.S8 as Record<string, number>;
  const r50 = s.leaseP50! / s.jsonP50!;
  const r99 = s.leaseP99! / s.jsonP99!;
  // Older runs' results lack S8 and its config entry.
  const reps = (config as { s8Reps?: number }).s8Reps ?? '?';
  sections.push(
    `### S8 — a reply's store work under a lease, session of ${s.messages} messages (${fmt(s.bytes! / 1024, 1)} kB of JSON) on Redis 127.0.0.1:6379, ${reps} interleaved repetitions (µs)\n\n` +
      table(
        ['', 'round trips', 'p50', 'p99', 'ratio p50 / p99 vs raw + JSON'],
        [
          [
            '@agentkit/storage-redis acquireLease + updateSessionState (fenced) + releaseLease',
            '3',
            fmt(s.leaseP50!),
            fmt(s.leaseP99!),
            `${times(r50)} / ${times(r99)}`,
          ],
          [
            'the same with getSession after the acquire (a whole resume: lease, load, save, release)',
            '4',
            fmt(s.fullP50!),
            fmt(s.fullP99!),
            `${times(s.fullP50! / s.jsonP50!)} / ${times(s.fullP99! / s.jsonP99!)}`,
          ],
          [
            'raw ioredis SET + GET, with JSON.stringify / JSON.parse',
            '2',
            fmt(s.jsonP50!),
            fmt(s.jsonP99!),
            '',
          ],
          [
            'raw ioredis SET + GET of the ready string',
            '2',
            fmt(s.strP50!),
            fmt(s.strP99!),
            `lease row vs this: ${times(s.leaseP50! / s.strP50!)} / ${times(s.leaseP99! / s.strP99!)}`,
          ],
        ],
      ),
  );
  check(
    'S8',
    '≤ ×2 raw SET/GET (p50; acquire + fenced save + release vs SET + GET, both sides serialising the same state)',
    `${times(r50)} (p99 ${times(r99)})`,
    r50 <= 2,
  );
}

if (extra.S9) {
  const s = extra.S9 as Record<string, number>;
  const workers = [1, 2, 4].filter((w) => s[`w${w}.repliesPerSec`] !== undefined);
  const one = s['w1.repliesPerSec']!;
  sections.push(
    `### S9 — replies as jobs on worker processes (@agentkit/worker, BullMQ on Redis 127.0.0.1:6379), model latency ${s.modelMs} ms, ${s.concurrency} replies at once per worker\n\n` +
      `Throughput: closed loop, two clients per worker slot, each request a reply of a new session over HTTP + SSE through a server with a \`QueueRunner\` (${fmt(s.measureMs! / 1000, 0)} s per row after a 1 s warm-up). First event: request sent → first SSE event (the worker's \`RUN_START\`).\n\n` +
      table(
        [
          'worker processes',
          'replies/s',
          'vs 1 worker',
          'first event p50 (ms)',
          'p99 (ms)',
          'CPU per reply: server + clients / workers (ms)',
        ],
        workers.map((w) => [
          String(w),
          fmt(s[`w${w}.repliesPerSec`]!),
          times(s[`w${w}.repliesPerSec`]! / one),
          fmt(s[`w${w}.firstP50`]!),
          fmt(s[`w${w}.firstP99`]!),
          `${fmt(s[`w${w}.apiCpuMsPerReply`]!)} / ${fmt(s[`w${w}.workerCpuMsPerReply`]!)}`,
        ]),
      ) +
      `\n\nQueue overhead: one request at a time, alternating (${(config as { s9Reps?: number }).s9Reps ?? '?'} each), request → first event.\n\n` +
      table(
        ['runner', 'p50 (ms)', 'p99 (ms)'],
        [
          ['QueueRunner + one worker process', fmt(s.queueFirstP50!), fmt(s.queueFirstP99!)],
          ['InProcessRunner', fmt(s.inProcessFirstP50!), fmt(s.inProcessFirstP99!)],
          [
            'overhead',
            fmt(s.queueFirstP50! - s.inProcessFirstP50!),
            fmt(s.queueFirstP99! - s.inProcessFirstP99!),
          ],
        ],
      ),
  );
  if (s['w4.repliesPerSec'] !== undefined) {
    const scale = s['w4.repliesPerSec'] / one;
    check('S9 scale-out', '4 workers ≥ ×3.5 one worker (replies/s)', times(scale), scale >= 3.5);
  }
  const overhead = s.queueFirstP50! - s.inProcessFirstP50!;
  check(
    'S9 queue overhead',
    '≤ 5 ms p50 (request → first event, vs in-process)',
    `${fmt(overhead)} ms`,
    overhead <= 5,
  );
}

if (extra.CTX) {
  const c = extra.CTX as Record<string, number>;
  const names = Object.keys(c)
    .filter((k) => k.endsWith('.early'))
    .map((k) => k.slice(0, -6));
  const rows = names.map((n) => [
    n === 'total' ? 'whole turn (µs / turn)' : `${n} hooks (µs / model call)`,
    fmt(c[`${n}.early`]!),
    fmt(c[`${n}.late`]!),
    times(c[`${n}.late`]! / c[`${n}.early`]!),
  ]);
  sections.push(
    `### Plugin cost over a long session (issue 6 "Scale")\n\nagentkit with injection + context + structured-output, ${c.turns} turns (one tool call + an answer each, ${c.contextMessages} messages at the end, nothing compressed); each plugin's hooks timed.\n\n` +
      table(['', 'turns 1–10', `turns ${c.turns! - 9}–${c.turns}`, 'late / early'], rows),
  );
}

{
  const kit = { table, fmt, times, cellText, med, check };
  if (extra.SRV) sections.push(...serverSections(JSON.parse(String(extra.SRV.config)), kit));
  if (extra.CKPT) sections.push(...checkpointSections(JSON.parse(String(extra.CKPT.config)), kit));
}
if (results['SETUP.kBPerAgent']) {
  const bareKB = med('SETUP.kBPerAgent', 'agentkit');
  const bareUs = med('SETUP.buildUs', 'agentkit');
  const rows = SETUP_SUBJECTS.map((s) => [
    s,
    cellText('SETUP.kBPerAgent', s, 2),
    times(ratio(med('SETUP.kBPerAgent', s), bareKB)),
    cellText('SETUP.buildUs', s, 2),
    times(ratio(med('SETUP.buildUs', s), bareUs)),
  ]);
  sections.push(
    `### SETUP — an agent per session (issue 13): ${config.setupAgents} agents held after 10 turns each (kB per agent, heap delta after GC), and µs to build one (\`new Agent\` with its plugins made as named)

` + table(['subject', 'kB / agent', 'vs no plugins', 'build (µs)', 'vs no plugins'], rows),
  );
  for (const s of ['agentkit+shared-plugins', 'agentkit+plugins'] as const) {
    const kB = med('SETUP.kBPerAgent', s);
    const us = med('SETUP.buildUs', s);
    check(
      s === 'agentkit+shared-plugins' ? 'SETUP (plugins shared)' : 'SETUP (plugins per agent)',
      `≤ ×1.5 the agent without plugins, kB and build time (${fmt(bareKB, 2)} kB, ${fmt(bareUs, 2)} µs)`,
      `${fmt(kB, 2)} kB (${times(kB / bareKB)}), ${fmt(us, 2)} µs (${times(us / bareUs)})`,
      kB <= bareKB * 1.5 && us <= bareUs * 1.5,
    );
  }
}

const verdict = (t: Target) => (t.pass === undefined ? '—' : t.pass ? 'pass' : '**miss**');
const targetTable = table(
  ['target', 'bar', 'agentkit', 'result'],
  targets.map((t) => [t.id, t.target, t.measured, verdict(t)]),
);
const versionOf = (name: string) => {
  try {
    return (
      JSON.parse(readFileSync(join(BENCH_DIR, 'node_modules', name, 'package.json'), 'utf8')) as {
        version: string;
      }
    ).version;
  } catch {
    return '?';
  }
};
const cpu = cpus();
const header = [
  `# agentkit benchmarks`,
  '',
  `Generated by \`pnpm bench\` (bench/src/run.ts) on ${date}, in ${durationS} s (raw numbers: the last line of bench/results.jsonl).`,
  '',
  `- Machine: ${cpu[0]?.model ?? '?'} × ${cpu.length}, ${(totalmem() / 2 ** 30).toFixed(0)} GB, ${platform()} ${release()}; Node ${process.version}${load?.length === 2 ? `; 1-minute load average ${load[0]!.toFixed(1)} at the start and ${load[1]!.toFixed(1)} at the end (the machine was shared with other work)` : ''}.`,
  `- agentkit @ ${commit} (${['core', 'injection', 'context', 'structured-output', 'storage-redis'].map((p) => `@agentkit/${p} ${versionOf(`@agentkit/${p}`)}`).join(', ')}), from the built \`dist\`.`,
  `- Peers: ai ${versionOf('ai')} (Vercel AI SDK), @openai/agents ${versionOf('@openai/agents')}, @langchain/langgraph ${versionOf('@langchain/langgraph')} with @langchain/core ${versionOf('@langchain/core')}; ioredis ${versionOf('ioredis')}, zod ${versionOf('zod')}.`,
  `- Every measurement ran in its own \`node\` process; subjects interleaved round by round (starting subject rotated). Cells show the median over rounds and (min–max); rounds: S1 ${config.s1Rounds}, S2 ${config.s2Rounds}, S3 ${config.s3Rounds}, S4 ${config.s4Rounds}, S5 ${config.s5Rounds}.`,
  '',
  '## Targets (issue 8)',
  '',
  targetTable,
  '',
  '## Results',
  '',
  sections.join('\n\n'),
  '',
].join('\n');

const methodPath = join(BENCH_DIR, 'METHOD.md');
const findingsPath = join(BENCH_DIR, 'FINDINGS.md');
const appendix = [methodPath, findingsPath]
  .filter(existsSync)
  .map((p) => readFileSync(p, 'utf8').trim())
  .join('\n\n');
const report = `${header}\n${appendix}\n`;

// Without the peers the targets have no bar: print the tables only.
process.stdout.write(`\n${pickedSubjects ? '' : `${targetTable}\n\n`}${sections.join('\n\n')}\n`);
if ((!quick && !only && !pickedSubjects) || reportOnly) {
  writeFileSync(join(BENCH_DIR, 'RESULTS.md'), report);
  log('wrote bench/RESULTS.md');
}
