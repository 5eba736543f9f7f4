import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createAgentServer } from '@agentkit/server';
import { serveAgentServer } from '@agentkit/server/node';
import { QueueRunner } from '@agentkit/worker';
import { Redis } from 'ioredis';
import { openQueueWorld, type QueueWorld, queueAgents } from './queue-bench-world';
import { url } from './redis-bench';
import { BENCH_DIR } from './bench-dir';
import { quantile } from './stats';

/** CPU time a process used so far (user + system), ms; Linux only (0 elsewhere). */
function procCpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // clock ticks of 10 ms
  } catch {
    return 0;
  }
}

/** Options of {@link queueBench}. */
export interface QueueBenchOptions {
  /** Worker processes of each throughput run. */
  workers: number[];
  /** Replies each worker runs at once. */
  concurrency: number;
  /** Length of each throughput run (after a warm-up of a second), ms. */
  measureMs: number;
  /** Requests per runner in the overhead comparison. */
  overheadReps: number;
  /** The model's latency, ms. */
  modelMs: number;
}

const WORKER = fileURLToPath(new URL('./queue-bench-worker.ts', import.meta.url));

/**
 * S9: replies as jobs on a pool of worker processes (`@agentkit/worker`). Throughput with 1, 2 and 4
 * worker processes on a model with a fixed latency (closed loop: two clients per worker slot, each
 * request a reply of a new session, over HTTP + SSE through a server with a `QueueRunner`), and the
 * queue's overhead: request → first event through the queue (one worker process) vs the in-process
 * runner, one request at a time, alternating.
 */
export async function queueBench(options: QueueBenchOptions): Promise<Record<string, number>> {
  const world: QueueWorld = { prefix: `agentkit-bench:queue:${process.pid}`, modelMs: options.modelMs };
  const shared = openQueueWorld(world);
  const common = {
    agents: queueAgents(world),
    store: shared.store,
    eventLog: shared.eventLog,
    authenticate: () => 'bench',
    logger: { warn() {}, error() {} },
    limits: { maxRunningRepliesPerUser: 100_000 },
  };
  const runner = new QueueRunner({
    connection: shared.connection,
    store: shared.store,
    eventLog: shared.eventLog,
    prefix: shared.prefix,
    keyPrefix: shared.keyPrefix,
  });
  const queued = await serveAgentServer(createAgentServer({ ...common, runner }), {
    port: 0,
    handleSignals: false,
  });
  const inProcess = await serveAgentServer(createAgentServer(common), { port: 0, handleSignals: false });
  const out: Record<string, number> = {
    modelMs: options.modelMs,
    concurrency: options.concurrency,
    measureMs: options.measureMs,
  };
  let n = 0;
  const reply = async (base: string) => {
    const t0 = performance.now();
    const res = await fetch(`${base}/agents/bench/sessions/b${process.pid}-${n++}/replies`, {
      method: 'POST',
      headers: { Accept: 'text/event-stream', 'Content-Type': 'application/json' },
      body: JSON.stringify({ input: 'What is the answer?' }),
    });
    if (res.status !== 200) throw new Error(`S9: HTTP ${res.status} ${await res.text()}`);
    let first = 0;
    let text = '';
    for await (const chunk of res.body!.pipeThrough(new TextDecoderStream())) {
      if (!first && chunk.includes('data:')) first = performance.now() - t0;
      text += chunk;
    }
    if (!text.includes('"RUN_END"') || !text.includes('"status":"ended"')) throw new Error(`S9: ${text}`);
    return { first, total: performance.now() - t0 };
  };
  const workers: Array<{ child: ChildProcess; exited: Promise<unknown> }> = [];
  const startWorkers = async (count: number) => {
    await Promise.all(
      Array.from({ length: count }, async () => {
        const child = spawn(
          process.execPath,
          ['--import', 'tsx', WORKER, JSON.stringify(world), String(options.concurrency)],
          { cwd: BENCH_DIR, stdio: ['ignore', 'pipe', 'inherit'] },
        );
        const exited = new Promise((resolve) => child.once('exit', resolve));
        workers.push({ child, exited });
        await new Promise<void>((resolve, reject) => {
          createInterface({ input: child.stdout! }).once('line', () => resolve());
          exited.then(() => reject(new Error('S9: a worker exited before it was ready')));
        });
      }),
    );
  };
  const stopWorkers = async () => {
    for (const w of workers) w.child.kill('SIGTERM');
    await Promise.all(workers.splice(0).map((w) => w.exited));
  };
  try {
    for (const count of options.workers) {
      await startWorkers(count);
      const clients = 2 * count * options.concurrency;
      const run = async (ms: number) => {
        const firsts: number[] = [];
        const until = performance.now() + ms;
        await Promise.all(
          Array.from({ length: clients }, async () => {
            while (performance.now() < until) firsts.push((await reply(queued.url)).first);
          }),
        );
        return firsts;
      };
      await run(1000); // warm-up
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      const workerCpu0 = workers.map((w) => procCpuMs(w.child.pid!));
      const firsts = await run(options.measureMs);
      const seconds = (performance.now() - t0) / 1000;
      const cpu = process.cpuUsage(cpu0);
      out[`w${count}.apiCpuMsPerReply`] = (cpu.user + cpu.system) / 1000 / firsts.length;
      out[`w${count}.workerCpuMsPerReply`] =
        workers.reduce((sum, w, i) => sum + procCpuMs(w.child.pid!) - workerCpu0[i]!, 0) / firsts.length;
      out[`w${count}.repliesPerSec`] = firsts.length / seconds;
      out[`w${count}.firstP50`] = quantile(firsts, 0.5);
      out[`w${count}.firstP99`] = quantile(firsts, 0.99);
      await stopWorkers();
    }

    // Overhead: one request at a time, alternating queue (one worker) and in-process.
    await startWorkers(1);
    for (let i = 0; i < 20; i++) await Promise.all([reply(queued.url), reply(inProcess.url)]); // warm-up
    const viaQueue: number[] = [];
    const direct: number[] = [];
    for (let i = 0; i < options.overheadReps; i++) {
      viaQueue.push((await reply(queued.url)).first);
      direct.push((await reply(inProcess.url)).first);
    }
    out.queueFirstP50 = quantile(viaQueue, 0.5);
    out.queueFirstP99 = quantile(viaQueue, 0.99);
    out.inProcessFirstP50 = quantile(direct, 0.5);
    out.inProcessFirstP99 = quantile(direct, 0.99);
    await stopWorkers();
    return out;
  } finally {
    await stopWorkers();
    await queued.close();
    await inProcess.close();
    await runner.close();
    await shared.close();
    const redis = new Redis(url);
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${world.prefix}*`, 'COUNT', 1000);
      if (keys.length) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
    redis.disconnect();
  }
}
