import { StateError } from './errors/state-error';

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const ROLES = new Set(['user', 'assistant', 'system']);
const CALL_STATES = new Set(['pending', 'asking', 'allowed', 'submitted', 'finished']);
const RESULT_STATES = new Set(['success', 'error', 'interrupted', 'denied', 'running']);
const FINISHED_REASONS = new Set(['completed', 'interrupted', 'exceed_max_iters', 'error']);
const ERROR_TYPES = new Set([
  'authentication',
  'permission',
  'rate_limit',
  'invalid_request',
  'upstream',
  'connection',
  'internal',
  'setup',
  'unknown',
]);
const BEHAVIORS = new Set(['allow', 'deny', 'ask']);
const USAGE_FIELDS = [
  'inputTokens',
  'outputTokens',
  'cacheInputTokens',
  'cacheCreationInputTokens',
  'reasoningTokens',
] as const;
/** Blocks each role may hold (as `validateMsg` enforces for input). */
const ROLE_BLOCKS: Record<string, ReadonlySet<string> | null> = {
  user: new Set(['text', 'data']),
  system: new Set(['text']),
  assistant: null,
};

/** The first shape problem found; the exported checks turn it into their own error or text. */
class ShapeProblem {
  constructor(readonly text: string) {}
}

function fail(path: string, expected: string): never {
  throw new ShapeProblem(`'${path}' must be ${expected}`);
}

/** Runs a check, returning the first problem's text (or `null`). */
function problemOf(check: () => void): string | null {
  try {
    check();
    return null;
  } catch (error) {
    if (error instanceof ShapeProblem) return error.text;
    throw error;
  }
}

/**
 * Why `msg` (already JSON, see `jsonValueProblem`) is not a message a state can hold, naming the path
 * (e.g. `'input[0].content[1].text' must be a string`), or `null`. What `reply` and `observe` check input
 * messages with, so that a state they grew always loads again.
 */
export function messageProblem(msg: unknown, path: string): string | null {
  return problemOf(() => checkMsg(msg, path));
}

/** Why a part of an external tool result (a text or data block; its id optional) cannot be kept, or `null`. */
export function resultPartProblem(part: unknown, path: string): string | null {
  return problemOf(() => checkTextOrData(isObject(part) ? { id: '', ...part } : part, path));
}

/** Why a permission rule cannot be kept, or `null`. */
export function ruleProblem(rule: unknown, path: string): string | null {
  return problemOf(() => checkRule(rule, path));
}

function str(o: Obj, key: string, path: string): void {
  if (typeof o[key] !== 'string') fail(`${path}.${key}`, 'a string');
}
function strOrNull(o: Obj, key: string, path: string): void {
  if (o[key] !== null && typeof o[key] !== 'string') fail(`${path}.${key}`, 'a string or null');
}
function optionalJsonObject(o: Obj, key: string, path: string): void {
  if (o[key] !== undefined && !isObject(o[key])) fail(`${path}.${key}`, 'an object');
}

/** A text or data block (summary, hint and tool-result parts, user messages). */
function checkTextOrData(b: unknown, path: string): void {
  if (!isObject(b)) fail(path, 'a text or data block');
  if (b.type !== 'text' && b.type !== 'data') fail(`${path}.type`, "'text' or 'data'");
  checkBlock(b, path);
}

function checkRule(rule: unknown, path: string): void {
  if (!isObject(rule)) fail(path, 'a permission rule');
  str(rule, 'toolName', path);
  strOrNull(rule, 'ruleContent', path);
  if (!BEHAVIORS.has(rule.behavior as string)) fail(`${path}.behavior`, "'allow', 'deny' or 'ask'");
}

function checkBlock(b: Obj, path: string): void {
  str(b, 'id', path);
  optionalJsonObject(b, 'providerData', path);
  switch (b.type) {
    case 'text':
      str(b, 'text', path);
      return;
    case 'thinking':
      str(b, 'thinking', path);
      return;
    case 'data': {
      const s = b.source;
      if (!isObject(s)) fail(`${path}.source`, 'a base64 or url source');
      str(s, 'mediaType', `${path}.source`);
      if (s.type === 'base64') str(s, 'data', `${path}.source`);
      else if (s.type === 'url') str(s, 'url', `${path}.source`);
      else fail(`${path}.source.type`, "'base64' or 'url'");
      if (b.name !== undefined) strOrNull(b, 'name', path);
      return;
    }
    case 'hint': {
      if (typeof b.hint !== 'string') {
        if (!Array.isArray(b.hint)) fail(`${path}.hint`, 'a string or a list of text and data blocks');
        for (let k = 0; k < b.hint.length; k++) checkTextOrData(b.hint[k], `${path}.hint[${k}]`);
      }
      strOrNull(b, 'source', path);
      str(b, 'createdAt', path);
      return;
    }
    case 'tool_call': {
      str(b, 'name', path);
      str(b, 'input', path);
      if (!CALL_STATES.has(b.state as string))
        fail(`${path}.state`, 'one of pending, asking, allowed, submitted, finished');
      if (b.suggestedRules !== undefined) {
        if (!Array.isArray(b.suggestedRules)) fail(`${path}.suggestedRules`, 'a list of rules');
        for (let k = 0; k < b.suggestedRules.length; k++)
          checkRule(b.suggestedRules[k], `${path}.suggestedRules[${k}]`);
      }
      return;
    }
    case 'tool_result': {
      str(b, 'name', path);
      if (!Array.isArray(b.output)) fail(`${path}.output`, 'a list of text and data blocks');
      for (let k = 0; k < b.output.length; k++) checkTextOrData(b.output[k], `${path}.output[${k}]`);
      if (!RESULT_STATES.has(b.state as string))
        fail(`${path}.state`, 'one of success, error, interrupted, denied, running');
      if (!isObject(b.metadata)) fail(`${path}.metadata`, 'an object');
      return;
    }
    default:
      fail(`${path}.type`, 'one of text, thinking, data, hint, tool_call, tool_result');
  }
}

function checkUsage(u: unknown, path: string): void {
  if (u === null) return;
  if (!isObject(u)) fail(path, 'null or a usage record');
  for (const f of USAGE_FIELDS) {
    const n = u[f];
    if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) fail(`${path}.${f}`, 'a number ≥ 0');
  }
}

function checkMsg(m: unknown, path: string): void {
  if (!isObject(m)) fail(path, 'a message object');
  str(m, 'id', path);
  if (!ROLES.has(m.role as string)) fail(`${path}.role`, "'user', 'assistant' or 'system'");
  str(m, 'name', path);
  const content = m.content;
  if (!Array.isArray(content)) fail(`${path}.content`, 'an array of blocks');
  const allowed = ROLE_BLOCKS[m.role as string];
  for (let j = 0; j < content.length; j++) {
    const b = content[j];
    const at = `${path}.content[${j}]`;
    if (!isObject(b) || typeof b.type !== 'string') fail(at, 'a block with a type');
    if (allowed && !allowed.has(b.type)) fail(`${at}.type`, `a block a ${m.role} message may hold`);
    checkBlock(b, at);
  }
  if (m.metadata !== undefined && !isObject(m.metadata)) fail(`${path}.metadata`, 'an object (or absent)');
  str(m, 'createdAt', path);
  checkUsage(m.usage, `${path}.usage`);
  strOrNull(m, 'finishedAt', path);
  if (m.finishedReason !== null && !FINISHED_REASONS.has(m.finishedReason as string))
    fail(`${path}.finishedReason`, 'null or one of completed, interrupted, exceed_max_iters, error');
  if (m.structuredOutput === undefined) fail(`${path}.structuredOutput`, 'JSON (null when absent)');
  if (m.error !== null) {
    if (!isObject(m.error)) fail(`${path}.error`, 'null or an error info');
    if (!ERROR_TYPES.has(m.error.type as string)) fail(`${path}.error.type`, 'an error type');
    str(m.error, 'message', `${path}.error`);
  }
}

/**
 * Checks every part of a loaded state (already JSON: parsed, or checked by `jsonValueProblem`) against
 * the shape the reply loop relies on, so that a state that loads can always be replied to. Throws
 * `StateError` naming the first bad path. Unknown extra fields are kept and not checked.
 */
export function checkAgentState(value: Obj): void {
  const problem = problemOf(() => checkState(value));
  if (problem) throw new StateError(`Invalid agent state: ${problem}.`);
}

function checkState(value: Obj): void {
  if (typeof value.sessionId !== 'string' || value.sessionId === '') fail('sessionId', 'a non-empty string');
  const summary = value.summary;
  if (typeof summary !== 'string') {
    if (!Array.isArray(summary)) fail('summary', 'a string or an array of text and data blocks');
    for (let k = 0; k < summary.length; k++) checkTextOrData(summary[k], `summary[${k}]`);
  }
  const context = value.context;
  if (!Array.isArray(context)) fail('context', 'an array of messages');
  // Indexed loops: this runs over every message and block of every loaded session.
  for (let i = 0; i < context.length; i++) checkMsg(context[i], `context[${i}]`);
  const reply = value.reply;
  if (reply !== null) {
    if (!isObject(reply)) fail('reply', 'null or an object');
    str(reply, 'id', 'reply');
    const it = reply.iteration;
    if (typeof it !== 'number' || !Number.isSafeInteger(it) || it < 0)
      fail('reply.iteration', 'an integer ≥ 0');
    if (!isObject(reply.data)) fail('reply.data', 'an object');
    const finish = reply.finish;
    if (finish !== null) {
      if (!isObject(finish)) fail('reply.finish', 'null or an object');
      if (finish.structuredOutput === undefined)
        fail('reply.finish.structuredOutput', 'JSON (null when absent)');
      if (
        finish.reason !== undefined &&
        finish.reason !== 'completed' &&
        finish.reason !== 'exceed_max_iters'
      )
        fail('reply.finish.reason', "'completed' or 'exceed_max_iters'");
      if (finish.text !== undefined) str(finish, 'text', 'reply.finish');
    }
  }
  const perms = value.permissions;
  if (!isObject(perms)) fail('permissions', 'an object');
  for (const k of ['allow', 'deny', 'ask'] as const) {
    const rules = perms[k];
    if (!Array.isArray(rules)) fail(`permissions.${k}`, 'an array of rules');
    for (let n = 0; n < rules.length; n++) checkRule(rules[n], `permissions.${k}[${n}]`);
  }
  if (!isObject(value.plugins)) fail('plugins', 'an object');
}
