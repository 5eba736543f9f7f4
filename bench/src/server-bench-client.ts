/**
 * The client process of SRV: plain `fetch` Server-Sent Events readers. argv: the plan (JSON). Asks the
 * server process to take its measurements at marks (a JSON line `{ "mark": … }` on stdout, answered by a
 * line on stdin) and prints `{ "result": … }` last.
 */
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { isDeepStrictEqual } from 'node:util';
import { type AgentEvent, type Msg, replayEvents } from '@agentkit/core';
import { forAtLeast } from './for-at-least';
import type { ServerSubject } from './server-job';
import { quantile } from './stats';
import { streamDeltas } from './workload';

/** What the client does (see `ServerJob`). */
export interface ClientPlan {
  url: string;
  subject: ServerSubject;
  part: 'reply' | 'deltas' | 'streams';
  warmupMs: number;
  measureMs: number;
  deltas: number;
  streams: number;
  /** Deltas of a held stream after its first. */
  tail: number;
}

const plan = JSON.parse(process.argv[2]!) as ClientPlan;
const acks = createInterface({ input: process.stdin })[Symbol.asyncIterator]();

/** Asks the server process to measure now; resolves once it has. */
async function mark(name: string): Promise<void> {
  process.stdout.write(`${JSON.stringify({ mark: name })}\n`);
  await acks.next();
}

/** One streamed reply as the client saw it. */
interface Reading {
  sessionId: string;
  /** Request sent → first event, → last event, → end of the stream (ms). */
  first: number;
  last: number;
  end: number;
  /** Text deltas received, and when the last one came (ms after the request). */
  deltas: number;
  lastDelta: number;
  /** The agent events (run markers left out), reduced: the message the client holds. */
  message: Msg | null;
}

let sessions = 0;

/**
 * Posts a reply to a new session and reads its SSE stream to the end. `onDelta` hears every text delta
 * as it arrives (the held streams wait for their first).
 */
async function reply(input: string, onDelta?: () => void): Promise<Reading> {
  const sessionId = `c${process.pid}-${sessions++}`;
  const t0 = performance.now();
  const res = await fetch(`${plan.url}/agents/bench/sessions/${sessionId}/replies`, {
    method: 'POST',
    headers: { Accept: 'text/event-stream', 'Content-Type': 'application/json' },
    body: JSON.stringify({ input }),
  });
  if (res.status !== 200) throw new Error(`SRV: HTTP ${res.status} ${await res.text()}`);
  const events: AgentEvent[] = [];
  let first = 0;
  let last = 0;
  let deltas = 0;
  let lastDelta = 0;
  let buffer = '';
  for await (const chunk of res.body!.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let start = 0;
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n', start)) {
      const block = buffer.slice(start, end);
      start = end + 2;
      // `data:` lines only (ids, `retry:` and `: ping` comments are not events).
      let data = '';
      for (const line of block.split('\n'))
        if (line.startsWith('data:')) data += (data ? '\n' : '') + line.slice(line[5] === ' ' ? 6 : 5);
      if (!data) continue;
      const now = performance.now() - t0;
      if (!first) first = now;
      last = now;
      const event = JSON.parse(data) as AgentEvent | { type: `RUN_${string}` };
      if (event.type.startsWith('RUN_')) continue;
      events.push(event as AgentEvent);
      if (event.type === 'TEXT_BLOCK_DELTA') {
        deltas++;
        lastDelta = now;
        onDelta?.();
      }
    }
    buffer = buffer.slice(start);
  }
  const end = performance.now() - t0;
  return { sessionId, first, last, end, deltas, lastDelta, message: replayEvents(events) };
}

const textOf = (message: Msg | null) =>
  (message?.content ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('');

/** The stored message of a session (agentkit server): the last of its messages. */
async function stored(sessionId: string): Promise<Msg | undefined> {
  const res = await fetch(`${plan.url}/agents/bench/sessions/${sessionId}/messages?limit=1`);
  if (res.status !== 200) throw new Error(`SRV: messages HTTP ${res.status}`);
  return ((await res.json()) as { messages: Msg[] }).messages.at(-1);
}

const json = (v: unknown) => JSON.parse(JSON.stringify(v)) as unknown;

async function run(): Promise<Record<string, number>> {
  switch (plan.part) {
    case 'reply': {
      const once = async () => {
        const r = await reply('Add the numbers.');
        if (r.message?.finishedReason !== 'completed')
          throw new Error(`SRV: reply ended ${textOf(r.message)}`);
        return r;
      };
      await forAtLeast(plan.warmupMs, 20, once);
      const readings: Reading[] = [];
      await mark('cpu-start');
      await forAtLeast(plan.measureMs, 50, async () => readings.push(await once()));
      await mark('cpu-end');
      const q = (f: (r: Reading) => number, p: number) => quantile(readings.map(f), p);
      return {
        replies: readings.length,
        firstP50: q((r) => r.first, 0.5),
        firstP99: q((r) => r.first, 0.99),
        lastP50: q((r) => r.last, 0.5),
        lastP99: q((r) => r.last, 0.99),
        endP50: q((r) => r.end, 0.5),
        endP99: q((r) => r.end, 0.99),
      };
    }
    case 'deltas': {
      const expected = streamDeltas(plan.deltas).join('');
      const once = async () => {
        const r = await reply('Tell me a long story.');
        if (r.deltas !== plan.deltas || textOf(r.message) !== expected)
          throw new Error(`SRV: ${r.deltas} of ${plan.deltas} deltas reached the client`);
        return r;
      };
      await forAtLeast(plan.warmupMs, 1, once);
      const rates: number[] = [];
      await mark('cpu-start');
      await forAtLeast(plan.measureMs, 3, async () => {
        const r = await once();
        rates.push(r.deltas / (r.lastDelta / 1000));
      });
      await mark('cpu-end');
      return {
        deltasPerSec: quantile(rates, 0.5),
        streamsMeasured: rates.length,
        deltasMeasured: rates.length * plan.deltas,
      };
    }
    case 'streams': {
      const expected = streamDeltas(1 + plan.tail).join('');
      // Warm-up with the gate open: every path the held streams take has run.
      await Promise.all(Array.from({ length: 20 }, () => reply('Tell me a story.')));
      await mark('baseline');
      const t0 = performance.now();
      const opened: Array<Promise<void>> = [];
      const readings = Array.from({ length: plan.streams }, () => {
        let firstDelta!: () => void;
        opened.push(new Promise<void>((resolve) => (firstDelta = resolve)));
        const r = reply('Tell me a story.', () => firstDelta());
        // A stream that fails before its first delta must not keep the others waiting.
        r.catch(() => firstDelta());
        return r;
      });
      await Promise.all(opened);
      const openMs = performance.now() - t0;
      await mark('open');
      const settled = await Promise.allSettled(readings);
      let failed = 0;
      let lostDeltas = 0;
      let mismatched = 0;
      for (let i = 0; i < settled.length; i += 50)
        await Promise.all(
          settled.slice(i, i + 50).map(async (s) => {
            if (s.status === 'rejected') {
              failed++;
              return;
            }
            const r = s.value;
            lostDeltas += 1 + plan.tail - r.deltas;
            let same = r.message?.finishedReason === 'completed' && textOf(r.message) === expected;
            // agentkit: the reduced stream must be exactly the stored message.
            if (same && plan.subject === 'agentkit-server')
              same = isDeepStrictEqual(json(r.message), json(await stored(r.sessionId)));
            if (!same) mismatched++;
          }),
        );
      return {
        streams: plan.streams,
        openMs,
        failed,
        lostDeltas,
        mismatched,
      };
    }
  }
}

run().then(
  (result) => {
    process.stdout.write(`${JSON.stringify({ result })}\n`);
    process.exit(0);
  },
  (error) => {
    process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
    process.exit(1);
  },
);
