import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Msg } from '@agentkit/core';
import { checkDeploys } from '@agentkit/test-fixtures/chaos';
import { afterAll, describe, expect, it } from 'vitest';
import { bookkeeping, newWorld, openStore, type StoreKind, type World } from './world';

const CHILD = fileURLToPath(new URL('./chaos-child.ts', import.meta.url));
const SESSIONS = 12;
const TURNS = 3;
const PROCESSES = 4;
const redis = bookkeeping();
afterAll(() => redis.quit());

function startChild(world: World): ChildProcess {
  return spawn(
    process.execPath,
    [
      '--conditions=@agentkit/source',
      '--import',
      'tsx',
      CHILD,
      JSON.stringify(world),
      String(SESSIONS),
      String(TURNS),
    ],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
}

async function chaos(kind: StoreKind) {
  const { world, dispose } = await newWorld(kind, 'chaos');
  const { prefix } = world;
  const children = new Set<ChildProcess>();
  const spawnOne = () => {
    const child = startChild(world);
    children.add(child);
    child.on('exit', () => children.delete(child));
  };
  for (let i = 0; i < PROCESSES; i++) spawnOne();
  let kills = 0;
  const deadline = Date.now() + 90_000;
  // Kill a random worker every 300–700 ms and start a new one, until every session has its turns.
  for (;;) {
    await new Promise((r) => setTimeout(r, 300 + Math.random() * 400));
    const turns = (await redis.hvals(`${prefix}:turns`)).map(Number);
    if (turns.length === SESSIONS && turns.every((t) => t >= TURNS)) break;
    if (Date.now() > deadline) throw new Error(`chaos run did not finish: turns ${turns.join(',')}`);
    const victims = [...children];
    const victim = victims[Math.floor(Math.random() * victims.length)];
    if (victim && kills < 40) {
      victim.kill('SIGKILL');
      kills++;
    }
    while (children.size < PROCESSES) spawnOne();
  }
  await redis.set(`${prefix}:stop`, '1');
  await Promise.all(
    [...children].map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))),
  );

  const { store, close } = openStore(world);
  try {
    const acked = (await redis.lrange(`${prefix}:acked`, 0, -1)).map((line) => line.split('|'));
    let deploys = 0;
    let uncertain = 0;
    for (let s = 0; s < SESSIONS; s++) {
      const record = await store.getSession('u', 'chaos', `s${s}`);
      expect(record, `session s${s}`).not.toBeNull();
      const replies = record!.state.context.filter((m: Msg) => m.role === 'assistant');
      expect(replies.map((m) => m.id)).toEqual(Array.from({ length: TURNS }, (_, t) => `s${s}-t${t}`));
      for (const reply of replies) expect(reply.finishedReason, reply.id).toBe('completed');
      const checked = await checkDeploys(replies, async (id) =>
        Number((await redis.get(`${prefix}:exec:${id}`)) ?? 0),
      );
      deploys += checked.deploys.length;
      uncertain += checked.uncertain;
    }
    // Every acknowledged save is still there (a later holder built on it; nothing overwrote it).
    for (const [sessionId, replyId] of acked) {
      const record = await store.getSession('u', 'chaos', sessionId!);
      const msg = record!.state.context.find((m) => m.id === replyId);
      expect(msg?.finishedReason, `acknowledged ${replyId}`).toBe('completed');
    }
    expect(Number((await redis.get(`${prefix}:overlap`)) ?? 0), 'tools of one session running at once').toBe(
      0,
    );
    expect(await redis.lrange(`${prefix}:errors`, 0, -1)).toEqual([]);
    const recovered = Number((await redis.get(`${prefix}:recovered`)) ?? 0);
    console.log(
      `chaos ${kind}: ${SESSIONS * TURNS} replies, ${deploys} deploy calls, ${kills} kills, ${recovered} recoveries, ${uncertain} uncertain results, duplicates 0`,
    );
    expect(kills).toBeGreaterThan(5);
  } finally {
    await close();
    await dispose(redis);
  }
}

describe('many processes, many sessions, random kill -9s', () => {
  it('Redis store: every reply completes once, no tool runs twice, no acknowledged save is lost', async () => {
    await chaos('redis');
  });
  it('file store: the same', async () => {
    await chaos('fs');
  });
});
