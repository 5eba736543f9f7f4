/**
 * A server process of the two-process test: an agent server on Redis (sessions and event log) with a
 * slowly streaming scripted model. argv: key prefix. Env: LEASE_TTL_MS, HEARTBEAT_MS (optional). Prints its
 * URL as one line, then serves until killed.
 */
import { Agent } from '@agentkit/core';
import { ScriptedModel, textChunks } from '@agentkit/core/testing';
import { RedisStorage } from '@agentkit/storage-redis';
import { createAgentServer } from '../src/index';
import { serveAgentServer } from '../src/node/index';
import { RedisEventLog } from '../src/redis/index';

const prefix = process.argv[2]!;
const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const app = createAgentServer({
  agents: {
    talker: ({ state }) =>
      new Agent({
        name: 'talker',
        model: new ScriptedModel([{ chunks: textChunks('word '.repeat(80), 5), delayMs: 15 }], {
          onExhausted: 'repeat',
        }),
        state,
      }),
  },
  store: new RedisStorage({ url, keyPrefix: `${prefix}:s` }),
  eventLog: new RedisEventLog({ url, keyPrefix: `${prefix}:e` }),
  authenticate: (c) => c.req.header('Authorization')?.replace(/^Bearer /, '') || null,
  logger: { warn() {}, error() {} },
  ...(process.env.LEASE_TTL_MS ? { leaseTtlMs: Number(process.env.LEASE_TTL_MS) } : {}),
  ...(process.env.HEARTBEAT_MS ? { limits: { heartbeatMs: Number(process.env.HEARTBEAT_MS) } } : {}),
});
const served = await serveAgentServer(app, { port: 0 });
console.log(served.url);
