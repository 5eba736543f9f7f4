/**
 * One measurement in a fresh process: `node --expose-gc --import tsx src/child.ts '<job json>'`.
 * Prints one JSON line with the result on stdout.
 */
import { performance } from 'node:perf_hooks';
import type { CheckpointJob } from './checkpoint-job';
import type { ServerJob } from './server-job';
import { fullGc, median } from './stats';
import type { SetupSubject } from './plugin-setup';
import { loadSubject, type SubjectId } from './subjects/index';

/** What the orchestrator asks a child to measure. */
export type Job =
  | { scenario: 'S1'; subject: SubjectId; k: number; warmupMs: number; measureMs: number }
  | { scenario: 'S2'; subject: SubjectId; turns: number; warmupMs: number }
  | { scenario: 'S3'; subject: SubjectId; deltas: number; warmupMs: number; measureMs: number }
  | { scenario: 'S4'; subject: SubjectId; sessions: number; turns: number }
  | { scenario: 'S4SHAPES'; sessions: number; turns: number }
  | { scenario: 'S7'; messages: number; reps: number }
  | { scenario: 'S8'; messages: number; reps: number }
  | {
      scenario: 'S9';
      workers: number[];
      concurrency: number;
      measureMs: number;
      overheadReps: number;
      modelMs: number;
    }
  | { scenario: 'CTX'; turns: number; window: number }
  | ServerJob
  | CheckpointJob
  | { scenario: 'SETUP'; subject: SetupSubject; agents: number; turns: number };

async function measure(job: Job): Promise<Record<string, number | string>> {
  switch (job.scenario) {
    case 'S1': {
      const reply = await (await loadSubject(job.subject)).s1(job.k);
      // Steady state: warm up for `warmupMs` (at least 3 replies), then time replies one by one for
      // `measureMs` (at least 5). Time-based, so a fast framework is as warm as a slow one.
      await forAtLeast(job.warmupMs, 3, reply);
      const times: number[] = [];
      await forAtLeast(job.measureMs, 5, async () => {
        const t0 = performance.now();
        await reply();
        times.push(performance.now() - t0);
      });
      // One iteration = one model call (+ its tool call): k + 1 per reply.
      return { usPerIter: (median(times) * 1000) / (job.k + 1) };
    }
    case 'S2': {
      const subject = await loadSubject(job.subject);
      // Warm up on throwaway sessions of up to `turns` turns for `warmupMs` (at least 30 turns).
      let warm = await subject.s2();
      let t = 0;
      await forAtLeast(job.warmupMs, 30, async () => {
        if (++t > job.turns) {
          warm = await subject.s2();
          t = 1;
        }
        await warm(t);
      });
      const turn = await subject.s2();
      await fullGc();
      const heap0 = process.memoryUsage().heapUsed;
      const times: number[] = [];
      for (let t = 1; t <= job.turns; t++) {
        const t0 = performance.now();
        await turn(t);
        times.push(performance.now() - t0);
      }
      await fullGc();
      const heap = process.memoryUsage().heapUsed - heap0;
      const early = median(times.slice(0, 10)) * 1000;
      const late = median(times.slice(-10)) * 1000;
      return {
        earlyUs: early,
        lateUs: late,
        medianUs: median(times) * 1000,
        growth: late / early,
        heapMB: heap / 1024 / 1024,
        keep: String(typeof turn),
      };
    }
    case 'S3': {
      const stream = await (await loadSubject(job.subject)).s3(job.deltas);
      const run = async () => {
        const t0 = performance.now();
        const count = await stream();
        const ms = performance.now() - t0;
        if (count !== job.deltas)
          throw new Error(`${job.subject} S3: ${count} of ${job.deltas} deltas reached the consumer`);
        return count / (ms / 1000);
      };
      await forAtLeast(job.warmupMs, 1, run);
      const rates: number[] = [];
      await forAtLeast(job.measureMs, 3, async () => {
        rates.push(await run());
      });
      return { deltasPerSec: median(rates) };
    }
    case 'S4': {
      const session = await (await loadSubject(job.subject)).s4();
      for (let s = 0; s < 20; s++) await session(-1 - s, job.turns); // warm up, discarded
      await fullGc();
      const heap0 = process.memoryUsage().heapUsed;
      const held: unknown[] = [];
      for (let s = 0; s < job.sessions; s++) held.push(await session(s, job.turns));
      await fullGc();
      const heap = process.memoryUsage().heapUsed - heap0;
      return {
        kBPerSession: heap / job.sessions / 1024,
        messages: countMessages(held[0]),
        held: held.length,
      };
    }
    case 'S4SHAPES':
      return (await import('./s4-shapes')).s4Shapes(job.sessions, job.turns);
    case 'S7':
      return (await import('./redis-bench')).redisBench(job.messages, job.reps);
    case 'S8':
      return (await import('./lease-bench')).leaseBench(job.messages, job.reps);
    case 'S9':
      return (await import('./queue-bench')).queueBench(job);
    case 'CTX':
      return (await import('./plugin-scale')).pluginScale(job.turns, job.window);
    case 'SRV':
      return (await import('./server-bench')).serverBench(job);
    case 'CKPT':
      return (await import('./checkpoint-bench')).checkpointBench(job);
    case 'SETUP':
      return (await import('./plugin-setup')).pluginSetup(job.subject, job.agents, job.turns);
  }
}

/** Runs `fn` again and again until `ms` have passed and it ran at least `times` times. */
async function forAtLeast(ms: number, times: number, fn: () => Promise<unknown>): Promise<void> {
  const start = performance.now();
  for (let i = 0; i < times || performance.now() - start < ms; i++) await fn();
}

function countMessages(held: unknown): number {
  if (Array.isArray(held)) return held.length;
  const context = (held as { context?: unknown[] }).context;
  return Array.isArray(context) ? context.length : -1;
}

const job = JSON.parse(process.argv[2] ?? '{}') as Job;
measure(job).then(
  (result) => {
    process.stdout.write(`${JSON.stringify(result)}\n`);
    process.exit(0);
  },
  (error) => {
    process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
  },
);
