import { type ChatModel, type ModelChunk, type SessionStore, defineTool, type Tool } from '@agentkit/core';
import { FileSessionStore } from '@agentkit/storage-fs';
import { RedisStorage } from '@agentkit/storage-redis';
import { Redis } from 'ioredis';

/** The Redis every test may use. */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

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

const DEL_IF_MINE =
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

/** An idempotent lookup: running it again after a crash is fine. */
export const lookupTool: Tool = defineTool({
  name: 'lookup',
  description: 'Look something up',
  inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
  idempotent: true,
  execute: () => 'found it',
});

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
      const reply = request.messages.findLast((m) => m.role === 'assistant');
      const done = reply ? reply.content.filter((b) => b.type === 'tool_result').length : 0;
      if (reply && done < 3)
        yield {
          type: 'tool_call',
          id: `${reply.id}-c${done}`,
          name: done === 1 ? 'lookup' : 'deploy',
          delta: JSON.stringify({ n: done }),
        };
      else yield { type: 'text', delta: `done after ${done} tools` };
    },
  };
}

/** A Redis connection for the test's bookkeeping. */
export function bookkeeping(): Redis {
  return new Redis(REDIS_URL, { lazyConnect: false, maxRetriesPerRequest: 1 });
}

/** Deletes the test's keys (SCAN, never KEYS: the Redis is shared). */
export async function deleteKeys(prefix: string): Promise<void> {
  const redis = bookkeeping();
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      if (keys.length) await redis.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    await redis.quit();
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
