import type { DataBlock, PermissionRule, TextBlock } from './blocks';
import { checkAgentState } from './check-agent-state';
import { StateError } from './errors/state-error';
import { newId } from './ids';
import type { JSONValue } from './json';
import { jsonValueProblem } from './json-value-check';
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
 * Loads a state from JSON text or a parsed value: checks every part the reply loop relies on (messages,
 * every block type and field, usage numbers, the summary, the reply position, permission rules, plugin
 * slots as JSON) and the schema version, and migrates older versions. Throws {@link StateError} naming
 * the first bad path when it is corrupt or incompatible — including values that are not JSON (functions,
 * cycles, class instances) or nest deeper than `MAX_JSON_DEPTH` levels. A state that loads can be replied
 * to. The input is not mutated.
 */
export function parseAgentState(input: string | unknown): AgentState {
  let value: unknown;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (cause) {
      throw new StateError(`The agent state is not valid JSON: ${(cause as Error).message}`, { cause });
    }
    const problem = jsonValueProblem(value, 'state', true);
    if (problem) throw new StateError(`Invalid agent state: ${problem}.`);
  } else {
    const problem = jsonValueProblem(input, 'state');
    if (problem) throw new StateError(`Invalid agent state: ${problem}.`);
    value = JSON.parse(JSON.stringify(input));
  }
  if (!isObject(value)) throw new StateError('The agent state must be a JSON object.');
  const version = value.schemaVersion;
  if (typeof version !== 'number' || !SUPPORTED_AGENT_STATE_VERSIONS.includes(version))
    throw new StateError(
      `Unsupported agent state schemaVersion ${JSON.stringify(version)}; this version of @agentkit/core loads ${SUPPORTED_AGENT_STATE_VERSIONS.join(', ')}.`,
    );
  checkAgentState(value);
  return value as unknown as AgentState;
}
