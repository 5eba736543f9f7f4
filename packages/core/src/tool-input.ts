import { ConfigError } from './errors/config-error';
import { checkJsonSchema } from './json-schema-check';
import type { JSONSchema } from './json';
import type { ToolSchema } from './model';
import { jsonValueProblem } from './json-value-check';
import { isStandardSchema, type StandardSchemaV1 } from './standard-schema';
import { thrownText } from './thrown-text';
import type { AnyTool } from './tool';

const schemaCache = new WeakMap<AnyTool, JSONSchema>();

/**
 * Why a zod schema cannot be used, or undefined: tool schemas need zod ≥ 4.2 (the first with Standard
 * JSON Schema). zod 3 objects have `_def` and no `_zod`; zod 4 carries its version in `_zod.version`.
 */
export function zodVersionProblem(schema: unknown): string | undefined {
  if (typeof schema !== 'object' || schema === null) return undefined;
  const s = schema as {
    _zod?: { version?: { major?: number; minor?: number } };
    _def?: unknown;
    safeParse?: unknown;
  };
  const v = s._zod?.version;
  let found: string | undefined;
  if (v && typeof v.major === 'number' && typeof v.minor === 'number') {
    if (v.major > 4 || (v.major === 4 && v.minor >= 2)) return undefined;
    found = `zod ${v.major}.${v.minor}`;
  } else if (!s._zod && typeof s._def === 'object' && s._def !== null && typeof s.safeParse === 'function')
    found = 'zod 3';
  if (!found) return undefined;
  return `it is a ${found} schema, and agentkit needs zod ≥ 4.2 (the first version whose schemas describe themselves as JSON Schema): install zod@^4.2`;
}

/**
 * The JSON Schema the model sees for a tool: `tool.jsonSchema`, else the Standard Schema's own JSON
 * Schema (`~standard.jsonSchema`), else `inputSchema` itself when it is plain JSON Schema. Cached.
 * Throws `ConfigError` when there is none (a zod schema older than 4.2 says so).
 */
export function toolJsonSchema(tool: AnyTool): JSONSchema {
  let schema = schemaCache.get(tool);
  if (schema) return schema;
  const problem = tool.jsonSchema ? undefined : zodVersionProblem(tool.inputSchema);
  if (problem)
    throw new ConfigError(`Tool '${tool.name}': ${problem}.`, { field: `tools.${tool.name}.inputSchema` });
  if (tool.jsonSchema) schema = tool.jsonSchema;
  else if (isStandardSchema(tool.inputSchema)) {
    const convert = tool.inputSchema['~standard'].jsonSchema;
    if (!convert)
      throw new ConfigError(
        `Tool '${tool.name}': its input schema (${tool.inputSchema['~standard'].vendor}) cannot produce JSON Schema; pass 'jsonSchema' too.`,
        { field: `tools.${tool.name}.inputSchema` },
      );
    schema = convert.input({ target: 'draft-2020-12' });
  } else schema = tool.inputSchema as JSONSchema;
  const { $schema: _drop, ...rest } = schema as Record<string, unknown>;
  schemaCache.set(tool, rest);
  return rest;
}

/**
 * Checks what a tool declares before any reply: a JSON Schema for the model ({@link toolJsonSchema}) and a
 * `timeoutMs` that is a number of ms > 0. Throws `ConfigError`.
 */
export function checkTool(tool: AnyTool): void {
  toolJsonSchema(tool);
  const ms = tool.timeoutMs;
  if (ms !== undefined && (typeof ms !== 'number' || !(ms > 0) || ms > 2 ** 31 - 1))
    throw new ConfigError(`Tool '${tool.name}': timeoutMs must be a number of ms > 0 (at most 2^31 − 1).`, {
      field: `tools.${tool.name}.timeoutMs`,
    });
}

/** The tool schemas a model sees: name, description and {@link toolJsonSchema} of each tool. */
export function toolSchemas(tools: Iterable<AnyTool>): ToolSchema[] {
  return Array.from(tools, (t) => ({
    name: t.name,
    description: t.description,
    inputSchema: toolJsonSchema(t),
  }));
}

/** The outcome of parsing a tool call's arguments. */
export type ParsedToolInput = { ok: true; value: unknown } | { ok: false; message: string };

function preview(raw: string): string {
  return raw.length > 200 ? `${raw.slice(0, 100)}[TRUNCATE]${raw.slice(-100)}` : raw;
}

/**
 * Parses a call's raw JSON arguments and validates them against the tool's schema. Failures come back
 * as messages written for the model, telling it what to fix.
 */
export async function parseToolInput(tool: AnyTool, raw: string): Promise<ParsedToolInput> {
  let value: unknown;
  try {
    value = raw.trim() === '' ? {} : JSON.parse(raw);
  } catch (error) {
    return {
      ok: false,
      message:
        `<system-reminder>The arguments of the call to tool '${tool.name}' are not valid JSON ` +
        `(${(error as Error).message}). The arguments were: ${preview(raw)}\n` +
        'You should recorrect the arguments in JSON format.</system-reminder>',
    };
  }
  // Validators and tools recurse: a value nested 100k levels deep would overflow their stack.
  const tooDeep = jsonValueProblem(value, '$', true);
  if (tooDeep)
    return {
      ok: false,
      message: `Input validation failed for tool '${tool.name}': ${tooDeep}; send flatter arguments.`,
    };
  // `JSON.parse` keeps a `"__proto__"` key as an own property; a tool that spreads its input with
  // `Object.assign` would turn it into the prototype of its own object. No schema declares it.
  if (hasProtoKey(value))
    return {
      ok: false,
      message: `Input validation failed for tool '${tool.name}': the arguments have a '__proto__' key, which no tool accepts; send them without it.`,
    };
  if (isStandardSchema(tool.inputSchema)) {
    let result: Awaited<ReturnType<StandardSchemaV1['~standard']['validate']>>;
    try {
      result = await tool.inputSchema['~standard'].validate(value);
    } catch (error) {
      // A validator that throws (instead of reporting issues) fails the call, not the reply.
      return {
        ok: false,
        message: `Input validation failed for tool '${tool.name}': the validator threw (${thrownText(error)}).`,
      };
    }
    if (!result.issues) return { ok: true, value: result.value };
    const problems = result.issues.map((issue) => {
      const path = issue.path?.map((p) => (typeof p === 'object' ? String(p.key) : String(p))).join('.');
      return path ? `${path}: ${issue.message}` : issue.message;
    });
    return { ok: false, message: `Input validation failed for tool '${tool.name}': ${problems.join('; ')}` };
  }
  const problems = checkJsonSchema(toolJsonSchema(tool), value);
  if (problems.length === 0) return { ok: true, value };
  return { ok: false, message: `Input validation failed for tool '${tool.name}': ${problems.join('; ')}` };
}

/** True when a parsed JSON value has an own `__proto__` key at any depth (iterative: no stack limit). */
function hasProtoKey(value: unknown): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const v = pending.pop();
    if (typeof v !== 'object' || v === null) continue;
    if (!Array.isArray(v) && Object.hasOwn(v, '__proto__')) return true;
    // A loop, not `push(...)`: spreading a huge array overflows the argument limit.
    for (const item of Array.isArray(v) ? v : Object.values(v)) pending.push(item);
  }
  return false;
}
