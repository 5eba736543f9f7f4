/**
 * SRV (issue 15 "Performance"): `@agentkit/server` against a bare Hono SSE handler, each measurement in a
 * fresh server process with its clients in another, subjects interleaved over rounds.
 */
import { type Cells, interleave, type ReportKit } from './interleave';
import { SERVER_SUBJECTS, type ServerJob } from './server-job';

/** SRV's settings, kept with the run's results. */
export interface ServerConfig {
  rounds: number;
  streamRounds: number;
  warmupMs: number;
  measureMs: number;
  deltas: number;
  streams: number;
}

/** The settings of a full or a quick run. */
export const serverConfig = (quick: boolean): ServerConfig =>
  quick
    ? { rounds: 1, streamRounds: 1, warmupMs: 200, measureMs: 300, deltas: 2_000, streams: 100 }
    : { rounds: 5, streamRounds: 3, warmupMs: 1_000, measureMs: 2_000, deltas: 20_000, streams: 1_000 };

/** Measures SRV's three parts, each interleaved over rounds. */
export async function measureServer(config: ServerConfig, log: (msg: string) => void): Promise<Cells> {
  const job =
    (part: ServerJob['part'], measureMs = config.measureMs) =>
    (subject: ServerJob['subject']): ServerJob => ({
      scenario: 'SRV',
      subject,
      part,
      warmupMs: config.warmupMs,
      measureMs,
      deltas: config.deltas,
      streams: config.streams,
    });
  return {
    ...(await interleave(
      'SRV.reply',
      config.rounds,
      SERVER_SUBJECTS,
      job('reply'),
      ['firstP50', 'firstP99', 'endP50', 'endP99', 'serverCpuMsPerReply', 'replies'],
      log,
    )),
    ...(await interleave(
      'SRV.deltas',
      config.rounds,
      SERVER_SUBJECTS,
      job('deltas', config.measureMs / 2),
      ['deltasPerSec', 'serverCpuUsPerDelta'],
      log,
    )),
    ...(await interleave(
      'SRV.streams',
      config.streamRounds,
      SERVER_SUBJECTS,
      job('streams'),
      ['heapKBPerStream', 'rssKBPerStream', 'openMs', 'failed', 'lostDeltas', 'mismatched'],
      log,
    )),
  };
}

/** SRV's tables and targets. */
export function serverSections(config: ServerConfig, k: ReportKit): string[] {
  const [kit, bare] = SERVER_SUBJECTS;
  const ratio = (cell: string) => k.med(cell, kit) / k.med(cell, bare);
  const rows = (cells: Array<[string, number?]>) => [
    ...SERVER_SUBJECTS.map((s) => [s, ...cells.map(([c, digits]) => k.cellText(c, s, digits))]),
    ['agentkit-server / bare-hono', ...cells.map(([c]) => k.times(ratio(c)))],
  ];
  const first = ratio('SRV.reply.firstP50');
  const firstP99 = ratio('SRV.reply.firstP99');
  const end = ratio('SRV.reply.endP50');
  const cpu = ratio('SRV.reply.serverCpuMsPerReply');
  k.check(
    'SRV first event',
    '≤ ×1.5 the bare Hono handler (p50)',
    `${k.times(first)} (p99 ${k.times(firstP99)})`,
    first <= 1.5,
  );
  k.check(
    'SRV reply overhead',
    '≤ ×1.5 the bare Hono handler (server CPU per reply; request → end of stream p50)',
    `${k.times(cpu)} CPU, ${k.times(end)} time`,
    cpu <= 1.5 && end <= 1.5,
  );
  const rate = ratio('SRV.deltas.deltasPerSec');
  k.check('SRV deltas/s', '≥ ×0.5 the bare Hono handler', k.times(rate), rate >= 0.5);
  const lost = ['failed', 'lostDeltas', 'mismatched'].reduce(
    (sum, f) => sum + k.med(`SRV.streams.${f}`, kit),
    0,
  );
  const n = config.streams.toLocaleString('en-US');
  k.check(
    `SRV ${n} streams`,
    'no event lost (every reduced stream = the stored message); kB per stream reported',
    `${k.fmt(k.med('SRV.streams.heapKBPerStream', kit))} kB heap (${k.times(ratio('SRV.streams.heapKBPerStream'))}), ${lost === 0 ? 'nothing lost' : `${lost} lost`}`,
    lost === 0,
  );
  return [
    `### SRV — @agentkit/server vs a bare Hono SSE handler (issue 15; ms, ${config.rounds} interleaved rounds)\n\n` +
      'Both serve the same agent (calculator, `add` not idempotent) on the same zero-latency model at ' +
      '`POST /agents/bench/sessions/:id/replies` with `Accept: text/event-stream`, each reply in a new session. ' +
      '@agentkit/server: `createAgentServer` (development mode, `InMemorySessionStore`, default in-memory event log ' +
      'and in-process runner) + `serveAgentServer`; bare: Hono `streamSSE` writing each event of `Agent.replyStream` ' +
      'as one message, on `@hono/node-server`. Clients: plain `fetch` SSE readers in another process. ' +
      `Replies one at a time (${k.fmt(config.measureMs / 1000, 1)} s after a ${k.fmt(config.warmupMs / 1000, 1)} s warm-up), ` +
      'each one tool call and a short answer; first event = request sent → first `data:` message; ' +
      'end = request sent → stream closed; CPU = user + system time of the server process over the measured replies.\n\n' +
      k.table(
        [
          'server',
          'first event p50',
          'first event p99',
          'end of stream p50',
          'end of stream p99',
          'server CPU per reply',
        ],
        rows([
          ['SRV.reply.firstP50'],
          ['SRV.reply.firstP99'],
          ['SRV.reply.endP50'],
          ['SRV.reply.endP99'],
          ['SRV.reply.serverCpuMsPerReply'],
        ]),
      ),
    `A streamed answer of ${config.deltas.toLocaleString('en-US')} one-word deltas (S3's), one at a time: text deltas per second reaching the client (request sent → last delta), and the server's CPU time per delta.\n\n` +
      k.table(
        ['server', 'deltas/s', 'server CPU per delta (µs)'],
        rows([['SRV.deltas.deltasPerSec', 0], ['SRV.deltas.serverCpuUsPerDelta']]),
      ),
    `${n} SSE clients at once on one server process (${config.streamRounds} interleaved rounds), each following its own session's reply: ` +
      'every reply streams its first delta, then waits; with all streams open the server process takes a full GC and ' +
      `its memory (delta over a baseline after a warm-up of 20 replies and a full GC, ÷ ${n}); then the replies finish ` +
      '(20 more deltas each) and every client reduces its stream with `replayEvents` and compares it with the stored message ' +
      '(`GET …/messages`; bare: the scripted text).\n\n' +
      k.table(
        [
          'server',
          'heap kB / stream',
          'RSS kB / stream',
          'all streams open (ms)',
          'failed',
          'deltas lost',
          'stream ≠ message',
        ],
        rows([
          ['SRV.streams.heapKBPerStream'],
          ['SRV.streams.rssKBPerStream'],
          ['SRV.streams.openMs', 0],
          ['SRV.streams.failed', 0],
          ['SRV.streams.lostDeltas', 0],
          ['SRV.streams.mismatched', 0],
        ]),
      ),
  ];
}
