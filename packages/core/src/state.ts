import type { DataBlock, PermissionRule, TextBlock } from './blocks';
import { StateError } from './errors/state-error';
import { newId } from './ids';
import type { JSONValue } from './json';
import type { Msg } from './msg';

/**
 * Schema versions of {@link AgentState}, one line each:
 * - 1: first release (context, summary, reply position with per-plugin reply data, permissions, plugin slots).
 */
export const AGENT_STATE_SCHEMA_VERSION = 1;
/** Versions {@link parseAgentState} loads (older ones are migrated). */
export const SUPPORTED_AGENT_STATE_VERSIONS: readonly number[] = [1];

/** Where the current (or last) reply stands. Everything needed to resume a paused reply is here and in the context. */
export interface ReplyPosition {
  /** The reply id, which is also the id of the reply's assistant message in the context. */
  id: string;
  /** Completed reasoning–acting iterations (a tool round counts once all its results exist). */
  iteration: number;
  /** Per-reply data of plugins, by plugin name (e.g. a structured-output schema). Reset for each reply. */
  data: Record<string, JSONValue>;
  /**
   * Set when a tool or plugin asked to end the reply (`finishReply`): it ends before the next model call,
   * with this reason (default `completed`) and structured output.
   */
  finish: { structuredOutput: JSONValue; reason?: 'completed' | 'exceed_max_iters'; text?: string } | null;
}

/** Rules deciding about tool calls before tools' own defaults. Confirmations with rules add to `allow`. */
export interface PermissionRules {
  allow: PermissionRule[];
  deny: PermissionRule[];
  ask: PermissionRule[];
}

/**
 * The whole persistable agent: plain JSON. `new Agent({ state })` in another process continues exactly
 * where this one stopped, including a paused reply.
 */
export interface AgentState {
  schemaVersion: number;
  sessionId: string;
  /** The compression summary; sent to the model as the first user message. */
  summary: string | Array<TextBlock | DataBlock>;
  /**
   * The uncompressed conversation. Append-only: only the current reply's message changes in place; to
   * change older messages, assign a new array (plugins: `ctx.replaceContext`). Incremental token counts
   * and plugin scans rely on this.
   */
  context: Msg[];
  /** The current or last reply, `null` before the first. */
  reply: ReplyPosition | null;
  permissions: PermissionRules;
  /** One slot per plugin, by plugin name. */
  plugins: Record<string, JSONValue>;
}

/** A fresh, empty state. */
export function createAgentState(init?: { sessionId?: string }): AgentState {
  return {
    schemaVersion: AGENT_STATE_SCHEMA_VERSION,
    sessionId: init?.sessionId ?? newId(),
    summary: '',
    context: [],
    reply: null,
    permissions: { allow: [], deny: [], ask: [] },
    plugins: {},
  };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Loads a state from JSON text or a parsed value: checks its shape and schema version and migrates older
 * versions. Throws {@link StateError} with a precise reason when it is corrupt or incompatible.
 * The input is not mutated.
 */
export function parseAgentState(input: string | unknown): AgentState {
  let value: unknown = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (cause) {
      throw new StateError(`The agent state is not valid JSON: ${(cause as Error).message}`, { cause });
    }
  } else {
    value = structuredClone(input);
  }
  if (!isObject(value)) throw new StateError('The agent state must be a JSON object.');
  const version = value.schemaVersion;
  if (typeof version !== 'number' || !SUPPORTED_AGENT_STATE_VERSIONS.includes(version))
    throw new StateError(
      `Unsupported agent state schemaVersion ${JSON.stringify(version)}; this version of @agentkit/core loads ${SUPPORTED_AGENT_STATE_VERSIONS.join(', ')}.`,
    );
  const fail: (path: string, expected: string) => never = (path, expected) => {
    throw new StateError(`Invalid agent state: '${path}' must be ${expected}.`);
  };
  if (typeof value.sessionId !== 'string' || value.sessionId === '') fail('sessionId', 'a non-empty string');
  if (typeof value.summary !== 'string' && !Array.isArray(value.summary))
    fail('summary', 'a string or an array of blocks');
  if (!Array.isArray(value.context)) fail('context', 'an array of messages');
  // Indexed loops: this runs over every message and block of every loaded session.
  const context = value.context as unknown[];
  for (let i = 0; i < context.length; i++) {
    const msg = context[i];
    if (!isObject(msg)) fail(`context[${i}]`, 'a message object');
    if (typeof msg.id !== 'string') fail(`context[${i}].id`, 'a string');
    if (msg.role !== 'user' && msg.role !== 'assistant' && msg.role !== 'system')
      fail(`context[${i}].role`, "'user', 'assistant' or 'system'");
    const content = msg.content;
    if (!Array.isArray(content)) fail(`context[${i}].content`, 'an array of blocks');
    for (let j = 0; j < content.length; j++) {
      const block = content[j];
      if (!isObject(block) || typeof block.type !== 'string')
        fail(`context[${i}].content[${j}]`, 'a block with a type');
    }
  }
  const reply = value.reply;
  if (reply !== null) {
    if (!isObject(reply)) fail('reply', 'null or an object');
    if (typeof reply.id !== 'string') fail('reply.id', 'a string');
    if (typeof reply.iteration !== 'number' || reply.iteration < 0) fail('reply.iteration', 'a number ≥ 0');
    if (!isObject(reply.data)) fail('reply.data', 'an object');
    if (reply.finish !== null && !isObject(reply.finish)) fail('reply.finish', 'null or an object');
  }
  const perms = value.permissions;
  if (!isObject(perms)) fail('permissions', 'an object');
  for (const k of ['allow', 'deny', 'ask'])
    if (!Array.isArray(perms[k])) fail(`permissions.${k}`, 'an array of rules');
  if (!isObject(value.plugins)) fail('plugins', 'an object');
  return value as unknown as AgentState;
}
