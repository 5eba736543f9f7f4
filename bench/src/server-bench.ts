import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { ChatModel, ModelChunk } from '@agentkit/core';
import { normalizeUsage } from '@agentkit/core/model';
import { BENCH_DIR } from './bench-dir';
import { startBenchServer } from './server-bench-apps';
import type { ServerJob } from './server-job';
import type { ClientPlan } from './server-bench-client';
import { fullGc } from './stats';
import { stepChunks, ZeroLatencyModel } from './subjects/zero-latency-model';
import { streamDeltas, ToolCycle } from './workload';

const CLIENT = fileURLToPath(new URL('./server-bench-client.ts', import.meta.url));

/** Deltas each held stream gets after the gate opens (the first one came before it). */
export const STREAM_TAIL = 20;

const usage = (outputTokens: number): ModelChunk => ({
  type: 'usage',
  usage: normalizeUsage({ inputTokens: 10, outputTokens }),
});

/**
 * SRV (issue 15): `@agentkit/server` (development mode, in-memory store and event log, in-process
 * runner) or a bare Hono SSE handler streaming `Agent.replyStream`, the same agent on the same
 * zero-latency model. The clients (plain `fetch` SSE readers) run in a separate process, so this
 * process measures only the server: its CPU time over the measured replies, its heap and RSS with the
 * held streams open (each after a full GC).
 */
export async function serverBench(job: ServerJob): Promise<Record<string, number>> {
  // The held streams wait here after their first delta, until the memory is measured.
  let gate: Promise<void> = Promise.resolve();
  let openGate = () => {};
  const model: ChatModel =
    job.part === 'reply'
      ? (() => {
          const cycle = new ToolCycle(1);
          return new ZeroLatencyModel(() => stepChunks(cycle.next()));
        })()
      : job.part === 'deltas'
        ? (() => {
            const chunks: ModelChunk[] = streamDeltas(job.deltas).map((delta) => ({ type: 'text', delta }));
            chunks.push(usage(job.deltas));
            return new ZeroLatencyModel(() => chunks);
          })()
        : {
            name: 'gated',
            contextSize: 1_000_000,
            async *stream() {
              const [first, ...tail] = streamDeltas(1 + STREAM_TAIL);
              yield { type: 'text', delta: first! };
              await gate;
              for (const delta of tail) yield { type: 'text', delta };
              yield usage(1 + STREAM_TAIL);
            },
          };
  const server = await startBenchServer(job.subject, model);
  const out: Record<string, number> = {};
  let cpu0 = process.cpuUsage();
  let baseline = process.memoryUsage();
  const onMark: Record<string, () => Promise<void>> = {
    async 'cpu-start'() {
      cpu0 = process.cpuUsage();
    },
    async 'cpu-end'() {
      const cpu = process.cpuUsage(cpu0);
      out.serverCpuMs = (cpu.user + cpu.system) / 1000;
    },
    async baseline() {
      await fullGc();
      baseline = process.memoryUsage();
      gate = new Promise((resolve) => (openGate = resolve));
    },
    async open() {
      await fullGc();
      const held = process.memoryUsage();
      out.heapKBPerStream = (held.heapUsed - baseline.heapUsed) / job.streams / 1024;
      out.rssKBPerStream = (held.rss - baseline.rss) / job.streams / 1024;
      openGate();
    },
  };
  try {
    const plan: ClientPlan = {
      url: server.url,
      subject: job.subject,
      part: job.part,
      warmupMs: job.warmupMs,
      measureMs: job.measureMs,
      deltas: job.deltas,
      streams: job.streams,
      tail: STREAM_TAIL,
    };
    const client = spawn(process.execPath, ['--import', 'tsx', CLIENT, JSON.stringify(plan)], {
      cwd: BENCH_DIR,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    const exited = new Promise<number | null>((resolve) => client.once('exit', resolve));
    let result: Record<string, number> | undefined;
    for await (const line of createInterface({ input: client.stdout! })) {
      const message = JSON.parse(line) as { mark?: string; result?: Record<string, number> };
      if (message.mark) {
        await onMark[message.mark]!();
        client.stdin!.write('ok\n');
      } else if (message.result) result = message.result;
    }
    const code = await exited;
    if (code !== 0 || !result) throw new Error(`SRV: the client process exited ${code}`);
    Object.assign(out, result);
    if (out.serverCpuMs !== undefined && out.replies) out.serverCpuMsPerReply = out.serverCpuMs / out.replies;
    if (out.serverCpuMs !== undefined && out.deltasMeasured)
      out.serverCpuUsPerDelta = (out.serverCpuMs * 1000) / out.deltasMeasured;
    return out;
  } finally {
    openGate();
    await server.close();
  }
}
