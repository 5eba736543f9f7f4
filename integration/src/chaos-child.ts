/**
 * One worker process of the chaos test: replies to random sessions of the world until told to stop,
 * recording what it acknowledged. Killed with SIGKILL at random moments by the test.
 * argv: world JSON, number of sessions, turns per session.
 */
import { Agent, AgentkitError, runSession } from '@agentkit/core';
import { lookupTool } from '@agentkit/test-fixtures/chaos';
import { bookkeeping, chaosModel, deployTool, openStore, type World } from './world';

const world = JSON.parse(process.argv[2]!) as World;
const sessions = Number(process.argv[3]);
const turns = Number(process.argv[4]);
const redis = bookkeeping();
const { store } = openStore(world);
const P = world.prefix;

/** Moves a session's turn counter from `turn` to `turn + 1` (once, whoever finishes it). */
const ADVANCE =
  "if tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0') == tonumber(ARGV[2]) then return redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] + 1) end return -1";

for (;;) {
  if (await redis.exists(`${P}:stop`)) break;
  const sessionId = `s${Math.floor(Math.random() * sessions)}`;
  const turn = Number((await redis.hget(`${P}:turns`, sessionId)) ?? 0);
  if (turn >= turns) {
    if (Number(await redis.hlen(`${P}:turns`)) >= sessions) {
      const all = await redis.hvals(`${P}:turns`);
      if (all.every((t) => Number(t) >= turns)) break;
    }
    continue;
  }
  const replyId = `${sessionId}-t${turn}`;
  try {
    const result = await runSession({
      store,
      session: { userId: 'u', agentId: 'chaos', sessionId },
      agent: (state) =>
        new Agent({
          name: 'chaos',
          model: chaosModel(),
          tools: [deployTool(redis, world, sessionId), lookupTool],
          state,
          logger: { warn() {}, error() {} },
        }),
      input: `turn ${turn}`,
      replyId,
      lease: { ttlMs: 1_000 },
    });
    if (result.outcome === 'recovered') await redis.incr(`${P}:recovered`);
    if (result.message.finishedReason === 'completed') {
      await redis.rpush(`${P}:acked`, `${sessionId}|${result.message.id}|${result.record.version}`);
      await redis.eval(ADVANCE, 1, `${P}:turns`, sessionId, turn);
    } else await redis.rpush(`${P}:unexpected`, `${replyId}:${result.message.finishedReason}`);
  } catch (error) {
    const code = AgentkitError.isInstance(error) ? error.code : 'CRASH';
    if (code === 'SESSION_BUSY') await new Promise((r) => setTimeout(r, 20 + Math.random() * 80));
    else await redis.rpush(`${P}:errors`, `${replyId}:${code}:${(error as Error).message}`);
  }
}
await redis.quit();
process.exit(0);
