import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Agent,
  type AgentState,
  type ChatModel,
  type ModelChunk,
  type SessionStore,
  defineTool,
  type Tool,
} from '@agentkit/core';
import { FileSessionStore } from '@agentkit/storage-fs';
import { RedisStorage } from '@agentkit/storage-redis';
import { nextToolCall } from '@agentkit/test-fixtures/chaos';
import { deleteByPrefix, REDIS_URL, uniquePrefix } from '@agentkit/test-redis';
import { Redis } from 'ioredis';

/** Which store a test runs against. */
export type StoreKind = 'redis' | 'fs';

/**
 * Everything processes of one test share: the store (a Redis key prefix or a directory) and a Redis
 * prefix for the test's own bookkeeping (tool executions, who runs what).
 */
export interface World {
  kind: StoreKind;
  /** Redis key prefix (both kinds keep bookkeeping in Redis). */
  prefix: string;
  /** The fs store's directory. */
  directory: string;
}

/**
 * A world of its own for one test run (a fresh Redis prefix and directory); `dispose` deletes both, with
 * `redis` for the keys.
 */
export async function newWorld(
  kind: StoreKind,
  label: string,
): Promise<{ world: World; dispose(redis: Redis): Promise<void> }> {
  const world: World = {
    kind,
    prefix: uniquePrefix(`${label}:${kind}`),
    directory: await mkdtemp(join(tmpdir(), `agentkit-${label}-`)),
  };
  return {
    world,
    async dispose(redis) {
      await deleteByPrefix(redis, world.prefix);
      await rm(world.directory, { recursive: true, force: true });
    },
  };
}

/** Opens the world's store. */
export function openStore(world: World): { store: SessionStore; close(): Promise<void> } {
  if (world.kind === 'redis') {
    const store = new RedisStorage({ url: REDIS_URL, keyPrefix: world.prefix });
    return { store, close: () => store.close() };
  }
  return { store: new FileSessionStore({ directory: world.directory }), close: async () => {} };
}

/**
 * A deploy tool with a side effect we can count: each execution increments `<prefix>:exec:<callId>` in
 * Redis, and marks the session as executing for a moment so that two processes running the same
 * session's tools at once are caught (`<prefix>:overlap` counts them).
 */
export function deployTool(redis: Redis, world: World, sessionId: string, delayMs = 30): Tool {
  return defineTool({
    name: 'deploy',
    description: 'Deploy (a side effect: counted)',
    inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
    execute: async (_input: unknown, ctx) => {
      const mine = `${process.pid}:${ctx.toolCallId}`;
      const free = await redis.set(`${world.prefix}:executing:${sessionId}`, mine, 'PX', 250, 'NX');
      if (free !== 'OK') {
        // Held by a live process: two processes run this session's tools at once. A holder killed
        // mid-tool leaves its mark for 250 ms, and a store may hand a dead holder's session over at once.
        const holder = Number((await redis.get(`${world.prefix}:executing:${sessionId}`))?.split(':')[0]);
        if (holder > 0 && isAlive(holder)) await redis.incr(`${world.prefix}:overlap`);
      }
      await redis.incr(`${world.prefix}:exec:${ctx.toolCallId}`);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      if (free === 'OK') await redis.eval(DEL_IF_MINE, 1, `${world.prefix}:executing:${sessionId}`, mine);
      return `deployed #${ctx.toolCallId}`;
    },
  });
}

/**
 * The `ops` agent of session `s1` in the exactly-once test: its model answers every call with `chunk` (a
 * tool call, or the final text), and its counted deploy needs the user's confirmation.
 */
export function confirmingAgent(
  redis: Redis,
  world: World,
  state: AgentState,
  chunk: ModelChunk,
  deployMs?: number,
): Agent {
  return new Agent({
    name: 'ops',
    model: {
      name: 'm',
      contextSize: 10_000,
      async *stream() {
        yield chunk;
      },
    },
    tools: [{ ...deployTool(redis, world, 's1', deployMs), needsConfirmation: true }],
    state,
  });
}

const DEL_IF_MINE =
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

/**
 * A stateless model, like a real one: from the conversation it decides the next step of a reply — three
 * tool calls (deploy, lookup, deploy), then an answer — with ids unique to the reply, after 20–50 ms.
 */
export function chaosModel(): ChatModel {
  return {
    name: 'chaos-model',
    contextSize: 1_000_000,
    async *stream(request): AsyncIterable<ModelChunk> {
      await new Promise((resolve) => setTimeout(resolve, 20 + Math.random() * 30));
      if (request.signal.aborted) throw request.signal.reason;
      const next = nextToolCall(request.messages);
      yield 'answerAfter' in next ? { type: 'text', delta: `done after ${next.answerAfter} tools` } : next;
    },
  };
}

/** A Redis connection for the test's bookkeeping. */
export function bookkeeping(): Redis {
  return new Redis(REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 1 });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
