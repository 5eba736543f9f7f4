import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';

/** A Lua script and its SHA1, run with {@link runScript}. */
export interface LuaScript {
  readonly lua: string;
  readonly sha: string;
}

/** The script with its SHA1. */
export function luaScript(lua: string): LuaScript {
  return { lua, sha: createHash('sha1').update(lua).digest('hex') };
}

/**
 * Runs a script with `EVALSHA`, falling back to `EVAL` when the server has not cached it yet (once per
 * server and script: `EVAL` caches it). One round trip when cached.
 */
export async function runScript(
  client: Redis | Cluster,
  script: LuaScript,
  keys: string[],
  args: Array<string | number>,
): Promise<unknown> {
  try {
    return await client.evalsha(script.sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
    return await client.eval(script.lua, keys.length, ...keys, ...args);
  }
}
