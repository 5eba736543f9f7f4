import type { ToolCallBlock } from './blocks';
import { ConfigError } from './errors/config-error';
import { InvalidInputError, ResumeMismatchError } from './errors/input-errors';
import type { ExternalExecutionResultEvent, InputEvent, UserConfirmResultEvent } from './events';
import { isInputEvent } from './events';
import { messageProblem, resultPartProblem, ruleProblem } from './check-agent-state';
import { jsonValueProblem } from './json-value-check';
import { isAbortSignal } from './session-store-checks';
import { createMsg, type Msg, validateMsg } from './msg';
import type { Plugin, ReplyOptions } from './plugin';
import type { AgentState } from './state';

/** What `reply` accepts: messages, a string (a user message), an input event, or nothing (continue). */
export type AgentInput = Msg | readonly Msg[] | string | InputEvent | null | undefined;

/**
 * Normalises `reply` input into messages or an input event, validating messages: user or assistant
 * role only, no tool calls, tool results or thinking (those come from the agent itself). Messages are
 * copied, so later changes by the caller do not reach the state.
 */
export function normalizeInput(input: AgentInput): { messages: Msg[] } | { event: InputEvent } {
  if (input === null || input === undefined) return { messages: [] };
  if (typeof input === 'string')
    return { messages: [createMsg({ role: 'user', name: 'user', content: input })] };
  if (isInputEvent(input)) return { event: input };
  const list = Array.isArray(input) ? input : [input as Msg];
  const messages = list.map((m, i) => {
    if (typeof m !== 'object' || m === null || !Array.isArray((m as Msg).content))
      throw new InvalidInputError(
        'Input must be messages (e.g. userMsg("…")), a string, an input event, or null.',
      );
    // The state keeps the message: it must be JSON it can save (no cycles, BigInt, 100k-deep metadata)
    // and have the shape a state needs to load again.
    const problem = jsonValueProblem(m, `input[${i}]`) ?? messageProblem(m, `input[${i}]`);
    if (problem) throw new InvalidInputError(`Invalid input message: ${problem}.`);
    if (m.role === 'system')
      throw new InvalidInputError(
        "Input messages cannot have role 'system'; set the agent's systemPrompt instead.",
      );
    for (const b of m.content)
      if (b.type === 'tool_call' || b.type === 'tool_result' || b.type === 'thinking')
        throw new InvalidInputError(
          `Input messages cannot contain '${b.type}' blocks; only the agent produces them.`,
        );
    validateMsg(m);
    // Checked to be JSON above, so a JSON copy loses nothing — and its objects are a fifth smaller than
    // structuredClone's, for as long as the state keeps them.
    return JSON.parse(JSON.stringify(m)) as Msg;
  });
  return { messages };
}

/** The message of the current reply in the context (looked up by id, so observed messages do not hide it). */
export function findReplyMsg(state: AgentState): Msg | undefined {
  const id = state.reply?.id;
  if (!id) return undefined;
  for (let i = state.context.length - 1; i >= 0; i--)
    if (state.context[i]!.id === id) return state.context[i];
  return undefined;
}

/** Calls a paused reply message waits for: asking ones, and submitted ones. */
export function awaitingCalls(msg: Msg | undefined): ToolCallBlock[] {
  if (!msg) return [];
  return msg.content.filter(
    (b): b is ToolCallBlock => b.type === 'tool_call' && (b.state === 'asking' || b.state === 'submitted'),
  );
}

/** True for a reply message left unfinished by a process that stopped (neither ended nor paused). */
export function isUnfinished(msg: Msg | undefined): boolean {
  return (
    msg !== undefined &&
    msg.role === 'assistant' &&
    msg.finishedReason === null &&
    awaitingCalls(msg).length === 0
  );
}

/**
 * The tool calls a paused reply waits for: `asking` (needs the user's confirmation) and `submitted`
 * (needs an external result). Empty when the agent is not paused.
 * @example
 * for (const call of awaitingToolCalls(agent.state)) if (call.state === 'asking') askUser(call);
 */
export function awaitingToolCalls(state: AgentState): ToolCallBlock[] {
  return awaitingCalls(findReplyMsg(state));
}

const resultStates = new Set(['success', 'error', 'interrupted', 'denied']);

/**
 * Checks that a resume event answers calls the paused reply waits for: the right kind, each call at most
 * once, the reply's id when given, and well-formed results. Throws {@link ResumeMismatchError} or
 * {@link InvalidInputError}; nothing is changed before the check passes.
 */
export function checkResume(event: UserConfirmResultEvent | ExternalExecutionResultEvent, msg: Msg): void {
  if (event.replyId !== undefined && event.replyId !== msg.id)
    throw new ResumeMismatchError(
      `${event.type} is for reply '${event.replyId}', but the paused reply is '${msg.id}'.`,
    );
  // Rules and results go into the state: JSON only.
  const notJson = jsonValueProblem(event, 'event');
  if (notJson) throw new InvalidInputError(`Invalid ${event.type}: ${notJson}.`);
  const want = event.type === 'USER_CONFIRM_RESULT' ? 'asking' : 'submitted';
  const answers = event.type === 'USER_CONFIRM_RESULT' ? event.confirmResults : event.executionResults;
  if (!Array.isArray(answers))
    throw new InvalidInputError(
      `${event.type} needs a list of ${event.type === 'USER_CONFIRM_RESULT' ? 'confirmResults' : 'executionResults'}.`,
    );
  const ids: unknown[] = [];
  const paused = new Map(awaitingCalls(msg).map((c) => [c.id, c]));
  for (const a of answers) {
    if (event.type === 'USER_CONFIRM_RESULT') {
      const r = a as UserConfirmResultEvent['confirmResults'][number];
      if (typeof r?.toolCall?.id !== 'string' || typeof r.confirmed !== 'boolean')
        throw new InvalidInputError(
          'Each confirm result needs `confirmed` (boolean) and `toolCall` with an id.',
        );
      if (r.confirmed && (typeof r.toolCall.name !== 'string' || typeof r.toolCall.input !== 'string'))
        throw new InvalidInputError(
          `The confirmed call '${r.toolCall.id}' needs its name and input (a JSON string).`,
        );
      // A confirmation may edit the call's input, never its tool (an unknown one would break the reply; another
      // one would run a tool the model never asked for).
      const call = paused.get(r.toolCall.id);
      if (r.confirmed && call && r.toolCall.name !== call.name)
        throw new InvalidInputError(
          `The confirmed call '${r.toolCall.id}' is a call of '${call.name}', not '${String(r.toolCall.name).slice(0, 64)}': a confirmation may edit its input, not its tool.`,
        );
      if (r.rules != null && !Array.isArray(r.rules))
        throw new InvalidInputError(`The rules of '${r.toolCall.id}' must be a list of permission rules.`);
      const badRule = (r.rules ?? []).reduce<string | null>(
        (found, rule, k) => found ?? ruleProblem(rule, `rules[${k}]`),
        null,
      );
      if (badRule) throw new InvalidInputError(`Invalid rule for '${r.toolCall.id}': ${badRule}.`);
      ids.push(r.toolCall.id);
    } else {
      const r = a as ExternalExecutionResultEvent['executionResults'][number];
      if (typeof r?.id !== 'string')
        throw new InvalidInputError('Each external result needs the id of its call.');
      if (typeof r.output !== 'string' && !Array.isArray(r.output))
        throw new InvalidInputError(
          `The result of '${r.id}' needs an output: a string or a list of text/data parts.`,
        );
      const badPart =
        typeof r.output === 'string'
          ? null
          : r.output.reduce<string | null>(
              (found, part, k) => found ?? resultPartProblem(part, `output[${k}]`),
              null,
            );
      if (badPart) throw new InvalidInputError(`Invalid output of '${r.id}': ${badPart}.`);
      if (
        r.metadata !== undefined &&
        (typeof r.metadata !== 'object' || r.metadata === null || Array.isArray(r.metadata))
      )
        throw new InvalidInputError(`The metadata of '${r.id}' must be a JSON object.`);
      if (!resultStates.has(r.state))
        throw new InvalidInputError(
          `The result of '${r.id}' has state '${String(r.state)}'; use success, error, interrupted or denied.`,
        );
      ids.push(r.id);
    }
  }
  const waiting = new Set(
    awaitingCalls(msg)
      .filter((c) => c.state === want)
      .map((c) => c.id),
  );
  if (waiting.size === 0)
    throw new ResumeMismatchError(
      `Received ${event.type} but no tool call is ${want === 'asking' ? 'waiting for confirmation' : 'waiting for an external result'}.`,
    );
  const wrong = ids.filter((id) => !waiting.has(id as string));
  if (wrong.length || ids.length === 0)
    throw new ResumeMismatchError(
      `${event.type} names tool calls ${wrong.map((id) => `'${String(id)}'`).join(', ') || '(none)'} that are not ${want}; waiting: ${[...waiting].map((id) => `'${id}'`).join(', ')}.`,
    );
  if (new Set(ids).size !== ids.length)
    throw new ResumeMismatchError(`${event.type} answers the same tool call more than once.`);
}

/** The longest delay `setTimeout` keeps (a larger one fires at once). */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** Reply options core types for plugins; each must be read by an installed plugin. */
const PLUGIN_REPLY_OPTIONS = ['structuredSchema'] as const;

/**
 * Checks the options of a reply and returns them: `InvalidInputError` for a value of the wrong kind (a
 * `signal` that is not an `AbortSignal`…), `ConfigError` for a plugin reply option no installed plugin reads.
 */
export function checkReplyOptions(options: ReplyOptions, plugins: readonly Plugin<any>[]): ReplyOptions {
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw new InvalidInputError('The reply options must be an object.');
  for (const key of ['signal', 'suspendSignal'] as const)
    if (options[key] !== undefined && !isAbortSignal(options[key]))
      throw new InvalidInputError(`The reply option '${key}' must be an AbortSignal.`);
  if (options.checkpoint !== undefined && typeof options.checkpoint !== 'function')
    throw new InvalidInputError("The reply option 'checkpoint' must be a function.");
  const ms = options.timeoutMs;
  if (ms !== undefined && (typeof ms !== 'number' || !(ms > 0) || ms > MAX_TIMER_MS))
    throw new InvalidInputError(
      "The reply option 'timeoutMs' must be a number of ms > 0 (at most 2^31 − 1).",
    );
  for (const key of PLUGIN_REPLY_OPTIONS) {
    if (options[key] === undefined || options[key] === null) continue;
    if (plugins.some((p) => p.replyOptions?.includes(key))) continue;
    throw new ConfigError(
      `The reply option '${key}' needs a plugin that reads it (structuredOutput() from @agentkit/structured-output), and none is installed.`,
      { field: key },
    );
  }
  return options;
}

/** Throws `InvalidInputError` unless `id` can name a new reply (a string of 1–256 characters no message uses). */
export function checkReplyId(id: unknown, state: AgentState): void {
  if (typeof id !== 'string' || id === '' || id.length > 256)
    throw new InvalidInputError('The replyId option must be a string of 1 to 256 characters.');
  for (const m of state.context)
    if (m.id === id)
      throw new InvalidInputError(`The replyId '${id}' is already the id of a message in the context.`);
}
