import { RedisStorage } from '@agentkit/storage-redis';
import { Redis } from 'ioredis';
import { performance } from 'node:perf_hooks';
import { sessionState, url } from './redis-bench';
import { quantile } from './stats';

/**
 * S8: the store work of one reply under a lease — `acquireLease` + `updateSessionState` (fenced by the
 * lease's token, with the expected version) + `releaseLease` — vs raw ioredis SET + GET of the same JSON
 * (serialised and parsed in the loop too, as in S7), and vs raw SET + GET of a ready string. A second
 * agentkit row adds the `getSession` a resuming process makes after the acquire. Interleaved per
 * repetition, one connection each.
 */
export async function leaseBench(messages: number, reps: number): Promise<Record<string, number>> {
  const state = await sessionState(messages);
  const prefix = `agentkit-bench:${process.pid}:`;
  const storage = new RedisStorage({ url, keyPrefix: prefix });
  const raw = new Redis(url);
  const ids = ['user', 'bench', 'session'] as const;
  const rawKey = `${prefix}raw`;
  const bytes = JSON.stringify(state);
  try {
    let version = (await storage.upsertSession(...ids, { state, expectedVersion: 0 })).version;
    const lease: number[] = [];
    const full: number[] = [];
    const json: number[] = [];
    const str: number[] = [];
    const runLease = async () => {
      const t0 = performance.now();
      const { token } = await storage.acquireLease(...ids, { ttlMs: 30_000 });
      const saved = await storage.updateSessionState(...ids, state, {
        expectedVersion: version,
        leaseToken: token,
      });
      const released = await storage.releaseLease(...ids, token);
      lease.push(performance.now() - t0);
      if (!released || saved.version !== version + 1) throw new Error('S8: lease lost');
      version = saved.version;
    };
    const runFull = async () => {
      const t0 = performance.now();
      const { token } = await storage.acquireLease(...ids, { ttlMs: 30_000 });
      const record = await storage.getSession(...ids);
      const saved = await storage.updateSessionState(...ids, record!.state, {
        expectedVersion: record!.version,
        leaseToken: token,
      });
      await storage.releaseLease(...ids, token);
      full.push(performance.now() - t0);
      if (record?.state.context.length !== state.context.length) throw new Error('S8: lost messages');
      version = saved.version;
    };
    const runJson = async () => {
      const t0 = performance.now();
      await raw.set(rawKey, JSON.stringify(state));
      const loaded = JSON.parse((await raw.get(rawKey))!) as typeof state;
      json.push(performance.now() - t0);
      if (loaded.context.length !== state.context.length) throw new Error('S8: lost messages');
    };
    const runStr = async () => {
      const t0 = performance.now();
      await raw.set(rawKey, bytes);
      const loaded = await raw.get(rawKey);
      str.push(performance.now() - t0);
      if (loaded?.length !== bytes.length) throw new Error('S8: lost bytes');
    };
    const order = [runLease, runFull, runJson, runStr];
    for (let i = 0; i < 50; i++) for (const run of order) await run(); // warm-up
    lease.length = full.length = json.length = str.length = 0;
    for (let i = 0; i < reps; i++)
      for (let j = 0; j < order.length; j++) await order[(i + j) % order.length]!();
    const us = (v: number[], p: number) => quantile(v, p) * 1000;
    return {
      bytes: Buffer.byteLength(bytes),
      messages: state.context.length,
      leaseP50: us(lease, 0.5),
      leaseP99: us(lease, 0.99),
      fullP50: us(full, 0.5),
      fullP99: us(full, 0.99),
      jsonP50: us(json, 0.5),
      jsonP99: us(json, 0.99),
      strP50: us(str, 0.5),
      strP99: us(str, 0.99),
    };
  } finally {
    await storage.deleteSession(...ids).catch(() => {});
    // The lease hash outlives the session by design; the benchmark leaves nothing behind.
    let cursor = '0';
    do {
      const [next, keys] = await raw.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      if (keys.length) await raw.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
    await storage.close();
    raw.disconnect();
  }
}
