/**
 * A worker process of the multi-process tests. argv: the world's config (JSON), worker options (JSON).
 * Prints `ready` once it takes jobs; closes gracefully on SIGTERM (then exits); killed with SIGKILL by
 * the chaos tests. Each job it starts is counted in `book:started:<pid>`.
 */
import { openShared, worldWorker } from './setup';
import { keysOf, type WorldConfig } from './world';

const config = JSON.parse(process.argv[2]!) as WorldConfig;
const options = JSON.parse(process.argv[3] ?? '{}') as Record<string, unknown>;
const shared = openShared(config);
const worker = worldWorker(config, shared, options);
const book = keysOf(config).book;
worker.worker.on('active', (job) => {
  shared.book.rpush(`${book}:active`, `${process.pid} ${job.id} ${Date.now()}`).catch(() => {});
});
await worker.waitUntilReady();
process.stdout.write('ready\n');
process.once('SIGTERM', async () => {
  await worker.close();
  await shared.close();
  process.exit(0);
});
