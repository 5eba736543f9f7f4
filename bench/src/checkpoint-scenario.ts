/**
 * CKPT (issue 12 "Performance"): S1 through `runSession`, a checkpoint before and after every tool call,
 * with a Redis store vs the in-memory store (and S1 without `runSession`), each measurement in a fresh
 * process, stores interleaved over rounds.
 */
import { CHECKPOINT_STORES, type CheckpointJob, type CheckpointStore } from './checkpoint-job';
import { type Cells, interleave, type ReportKit } from './interleave';

/** CKPT's settings, kept with the run's results. */
export interface CheckpointConfig {
  rounds: number;
  ks: number[];
  warmupMs: number;
  measureMs: number;
}

/** The settings of a full or a quick run. */
export const checkpointConfig = (quick: boolean): CheckpointConfig =>
  quick
    ? { rounds: 1, ks: [10], warmupMs: 200, measureMs: 300 }
    : { rounds: 5, ks: [10, 100], warmupMs: 1_000, measureMs: 1_000 };

/** The store methods a reply calls, in the order a reply calls them. */
const METHODS = ['acquireLease', 'getSession', 'upsertSession', 'updateSessionState', 'releaseLease'];

/** Measures CKPT at each K, stores interleaved over rounds. */
export async function measureCheckpoint(
  config: CheckpointConfig,
  log: (msg: string) => void,
): Promise<Cells> {
  const cells: Cells = {};
  for (const k of config.ks)
    Object.assign(
      cells,
      await interleave(
        `CKPT.k${k}`,
        config.rounds,
        CHECKPOINT_STORES,
        (store): CheckpointJob => ({
          scenario: 'CKPT',
          store,
          k,
          warmupMs: config.warmupMs,
          measureMs: config.measureMs,
        }),
        [
          'usPerIter',
          'storeCallsPerReply',
          'storeShare',
          ...METHODS.flatMap((m) => [`calls.${m}`, `us.${m}`]),
        ],
        log,
      ),
    );
  return cells;
}

/** CKPT's tables and target. */
export function checkpointSections(config: CheckpointConfig, k: ReportKit): string[] {
  const labels: Record<CheckpointStore, string> = {
    none: 'S1 as it is: `agent.reply`, no store',
    memory: '`runSession` + `InMemorySessionStore`',
    redis: '`runSession` + `RedisStorage` (127.0.0.1:6379)',
  };
  const per = (kk: number, s: string) => k.med(`CKPT.k${kk}.usPerIter`, s);
  const main = k.table(
    ['', ...config.ks.flatMap((kk) => [`K=${kk}`, `vs in-memory, K=${kk}`])],
    CHECKPOINT_STORES.map((s) => [
      labels[s],
      ...config.ks.flatMap((kk) => [
        k.cellText(`CKPT.k${kk}.usPerIter`, s),
        k.times(per(kk, s) / per(kk, 'memory')),
      ]),
    ]),
  );
  const kk = config.ks[0]!;
  const breakdown = k.table(
    [
      'store call',
      ...(['memory', 'redis'] as const).flatMap((s) => [`${s}: calls per reply`, `${s}: µs per call`]),
    ],
    [
      ...METHODS.map((m) => [
        `\`${m}\``,
        ...(['memory', 'redis'] as const).flatMap((s) => [
          k.fmt(k.med(`CKPT.k${kk}.calls.${m}`, s), 0),
          k.fmt(k.med(`CKPT.k${kk}.us.${m}`, s)),
        ]),
      ]),
      [
        'share of the reply with a store call in flight',
        ...(['memory', 'redis'] as const).flatMap((s) => [
          '',
          `${k.fmt(100 * k.med(`CKPT.k${kk}.storeShare`, s), 0)} %`,
        ]),
      ],
    ],
  );
  const r = per(10, 'redis') / per(10, 'memory');
  if (config.ks.includes(10))
    k.check(
      'CKPT K=10',
      'S1 through `runSession` with Redis ≤ ×2 with the in-memory store (µs per iteration)',
      `${k.fmt(per(10, 'redis'))} vs ${k.fmt(per(10, 'memory'))} µs (${k.times(r)})`,
      r <= 2,
    );
  return [
    `### CKPT — S1 through \`runSession\`, a checkpoint before and after every tool call (issue 12; µs per iteration, ${config.rounds} interleaved rounds)\n\n` +
      'A fresh agent per reply and a new session per reply (so every reply saves the same): lease, create, K calls of ' +
      '`add` (not idempotent: a fenced checkpoint before it runs and after its result), the answer, the final save, release. ' +
      'The cell is the median reply time ÷ (K + 1), as in S1.\n\n' +
      main,
    `Where a reply's time goes at K=${kk}: the store calls of one reply (an instrumented pass after the timed one; medians over rounds).\n\n` +
      breakdown,
  ];
}
