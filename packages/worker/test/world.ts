/**
 * What the worker tests share across processes: agents whose side effects are counted in Redis, and
 * the options every process of one test uses.
 */
import {
  Agent,
  type AgentState,
  type ChatModel,
  defineTool,
  type Logger,
  type ModelChunk,
  ModelError,
  type Tool,
} from '@agentkit/core';
import type { AgentDefinition } from '@agentkit/server';
import { lookupTool, nextToolCall } from '@agentkit/test-fixtures/chaos';
import type { Redis } from 'ioredis';

export const silent: Logger = { warn: () => {}, error: () => {} };

/** What every process of a test is told (as JSON). */
export interface WorldConfig {
  /** Prefix of every key of the test: store, event log, queue, bookkeeping. */
  prefix: string;
  /** Model latency per call, ms: `[min, max]`. Default `[20, 50]`. */
  modelMs?: [number, number];
  /** How long a deploy takes, ms. Default 30. */
  deployMs?: number;
  /** The talker's pause between words, ms. Default 15. */
  talkMs?: number;
}

/** The key prefixes derived from the test's prefix. */
export function keysOf(config: WorldConfig) {
  return {
    store: `${config.prefix}:store`,
    log: `${config.prefix}:log`,
    bull: `${config.prefix}:bull`,
    lines: `${config.prefix}:lines`,
    book: `${config.prefix}:book`,
  };
}

/**
 * Runs `fn` while marking the session as busy in this process: a session that two processes work on at
 * once (a model call or a tool each) is counted in `book:overlap`. A mark left by a killed process
 * expires after a second, before any takeover (the lease outlives it).
 */
async function guarded<T>(
  redis: Redis,
  config: WorldConfig,
  sessionId: string,
  fn: () => Promise<T>,
): Promise<T> {
  const book = keysOf(config).book;
  const mine = `${process.pid}:${Math.random()}`;
  const free = await redis.set(`${book}:busy:${sessionId}`, mine, 'PX', 1000, 'NX');
  if (free !== 'OK') await redis.incr(`${book}:overlap`);
  try {
    return await fn();
  } finally {
    if (free === 'OK') await redis.eval(DEL_IF_MINE, 1, `${book}:busy:${sessionId}`, mine);
  }
}

/** A deploy tool with a side effect we can count: each execution increments `book:exec:<callId>`. */
function deployTool(redis: Redis, config: WorldConfig, sessionId: string, needsConfirmation = false): Tool {
  const book = keysOf(config).book;
  return defineTool({
    name: 'deploy',
    description: 'Deploy (a side effect: counted)',
    inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
    needsConfirmation,
    execute: (_input: unknown, ctx) =>
      guarded(redis, config, sessionId, async () => {
        await redis.incr(`${book}:exec:${ctx.toolCallId}`);
        await new Promise((resolve) => setTimeout(resolve, config.deployMs ?? 30));
        return `deployed #${ctx.toolCallId}`;
      }),
  });
}

const DEL_IF_MINE =
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

/**
 * A stateless model, like a real one: from the conversation it decides the next step of a reply — three
 * tool calls (deploy, lookup, deploy), then an answer — with ids unique to the reply; the session is
 * marked busy while it thinks (see {@link guarded}). While
 * `book:outage` is above zero, each call fails with a rate-limit error (and counts it down).
 */
function opsModel(redis: Redis, config: WorldConfig, sessionId: string): ChatModel {
  const [min, max] = config.modelMs ?? [20, 50];
  const outage = `${keysOf(config).book}:outage`;
  return {
    name: 'ops-model',
    contextSize: 1_000_000,
    async *stream(request): AsyncIterable<ModelChunk> {
      await guarded(
        redis,
        config,
        sessionId,
        () => new Promise((resolve) => setTimeout(resolve, min + Math.random() * (max - min))),
      );
      if (request.signal.aborted) throw request.signal.reason;
      if ((await redis.decr(outage)) >= 0)
        throw new ModelError('rate_limit', 'The provider is overloaded.', { status: 429 });
      const next = nextToolCall(request.messages);
      if (!('answerAfter' in next)) yield next;
      else
        for (const word of `done after ${next.answerAfter} tools`.split(' '))
          yield { type: 'text', delta: `${word} ` };
    },
  };
}

/** A model that talks for a while: 80 words, one every `ms` (abort-aware). */
function talkerModel(ms: number): ChatModel {
  return {
    name: 'talker',
    contextSize: 1_000_000,
    async *stream(request): AsyncIterable<ModelChunk> {
      for (let i = 0; i < 80; i++) {
        await new Promise((resolve, reject) => {
          const timer = setTimeout(resolve, ms);
          request.signal.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(request.signal.reason);
          });
        });
        yield { type: 'text', delta: `word${i} ` };
      }
    },
  };
}

/**
 * The agents: `ops` (deploy, lookup, deploy, answer; counted side effects), `guarded` (the same, each
 * deploy waits for the user's confirmation) and `talker` (80 words, one every `talkMs`: about 1.2 s of
 * streaming by default).
 */
export function worldAgents(redis: Redis, config: WorldConfig): Record<string, AgentDefinition> {
  return {
    ops: ({ state, session }: { state: AgentState; session: { sessionId: string } }) =>
      new Agent({
        name: 'ops',
        model: opsModel(redis, config, session.sessionId),
        tools: [deployTool(redis, config, session.sessionId), lookupTool],
        state,
        modelRetry: { maxRetries: 0 },
        logger: silent,
      }),
    guarded: ({ state, session }: { state: AgentState; session: { sessionId: string } }) =>
      new Agent({
        name: 'guarded',
        model: opsModel(redis, config, session.sessionId),
        tools: [deployTool(redis, config, session.sessionId, true), lookupTool],
        state,
        modelRetry: { maxRetries: 0 },
        logger: silent,
      }),
    talker: ({ state }: { state: AgentState }) =>
      new Agent({ name: 'talker', model: talkerModel(config.talkMs ?? 15), state, logger: silent }),
  };
}
