/**
 * The API process of the multi-process tests: a server with a QueueRunner. argv: the world's config
 * (JSON), runner options (JSON). Prints its URL as one line; closes on SIGTERM.
 */
import { openShared, worldServer } from './setup';
import type { WorldConfig } from './world';

const config = JSON.parse(process.argv[2]!) as WorldConfig;
const options = JSON.parse(process.argv[3] ?? '{}') as Record<string, unknown>;
const shared = openShared(config);
const server = await worldServer(config, shared, options);
process.stdout.write(`${server.url}\n`);
process.once('SIGTERM', async () => {
  await server.close();
  await shared.close();
  process.exit(0);
});
