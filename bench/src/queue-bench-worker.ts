/**
 * A worker process of the queue benchmark. argv: the world (JSON), the worker's concurrency. Prints
 * `ready`; closes gracefully on SIGTERM.
 */
import { startWorker } from '@agentkit/worker';
import { openQueueWorld, type QueueWorld, queueAgents } from './queue-bench-world';

const world = JSON.parse(process.argv[2]!) as QueueWorld;
const shared = openQueueWorld(world);
const worker = startWorker({
  agents: queueAgents(world),
  store: shared.store,
  eventLog: shared.eventLog,
  connection: shared.connection,
  prefix: shared.prefix,
  keyPrefix: shared.keyPrefix,
  concurrency: Number(process.argv[3]),
});
await worker.waitUntilReady();
process.stdout.write('ready\n');
process.once('SIGTERM', async () => {
  await worker.close();
  await shared.close();
  process.exit(0);
});
