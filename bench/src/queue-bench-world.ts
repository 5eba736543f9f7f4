/**
 * What the queue benchmark's processes share: an agent on a model with a fixed latency, the store, the
 * event log and the queue's names, all under one key prefix.
 */
import { Agent, type AgentState, type ChatModel, type ModelChunk } from '@agentkit/core';
import type { AgentDefinition } from '@agentkit/server';
import { RedisEventLog } from '@agentkit/server/redis';
import { RedisStorage } from '@agentkit/storage-redis';
import { url } from './redis-bench';

/** The benchmark's settings, passed to every process as JSON. */
export interface QueueWorld {
  prefix: string;
  /** The model's latency per call, ms. */
  modelMs: number;
}

/** A model that answers after exactly `ms` with a short text in four deltas (I/O bound, like a provider). */
function fixedLatencyModel(ms: number): ChatModel {
  return {
    name: 'fixed-latency',
    contextSize: 1_000_000,
    async *stream(request): AsyncIterable<ModelChunk> {
      await new Promise((resolve) => setTimeout(resolve, ms));
      if (request.signal.aborted) throw request.signal.reason;
      for (const delta of ['The ', 'answer ', 'is ', '42.']) yield { type: 'text', delta };
    },
  };
}

/** The agents: `bench`, one model call per reply. */
export function queueAgents(world: QueueWorld): Record<string, AgentDefinition> {
  const model = fixedLatencyModel(world.modelMs);
  return {
    bench: ({ state }: { state: AgentState }) => new Agent({ name: 'bench', model, state }),
  };
}

/** The store, the event log, and the key prefixes of the queue. */
export function openQueueWorld(world: QueueWorld) {
  const store = new RedisStorage({ url, keyPrefix: `${world.prefix}:s` });
  const eventLog = new RedisEventLog({ url, keyPrefix: `${world.prefix}:e` });
  return {
    store,
    eventLog,
    connection: { url },
    prefix: `${world.prefix}:bull`,
    keyPrefix: `${world.prefix}:q`,
    async close() {
      await eventLog.close();
      await store.close();
    },
  };
}
