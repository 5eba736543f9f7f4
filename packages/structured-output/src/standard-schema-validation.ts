import type { JSONValue, StandardSchemaV1 } from '@agentkit/core';
import { formatIssuePath, formatValidationError } from './format-validation-error';
import type { OutputValidation } from './output-validation';

/**
 * Validates a structured output in process with the schema object itself (zod, valibot, arktype…):
 * whatever the schema does on parse happens (zod fills defaults, drops unknown keys, runs refinements).
 * The parsed value must be plain JSON (it is stored in the agent state and typed as the schema's output):
 * an output with a `Date`, a `Map`, a bigint… is a schema problem (`schemaProblem: true`), not something
 * the model can fix.
 */
export async function validateWithStandardSchema(
  schema: StandardSchemaV1,
  value: unknown,
): Promise<OutputValidation> {
  let result: StandardSchemaV1.Result<unknown>;
  try {
    result = await schema['~standard'].validate(value);
  } catch (error) {
    return { ok: false, error: String(error) };
  }
  if (result.issues) {
    return {
      ok: false,
      error: formatValidationError(
        result.issues.map((issue) => ({
          path: (issue.path ?? []).map((segment) => (typeof segment === 'object' ? segment.key : segment)),
          message: issue.message,
        })),
      ),
    };
  }
  return toJson(result.value);
}

function toJson(value: unknown): OutputValidation {
  const problem = notPlainJson(value, []);
  if (problem === null) return { ok: true, value: JSON.parse(JSON.stringify(value)) as JSONValue };
  return {
    ok: false,
    schemaProblem: true,
    error:
      `SchemaError: The structuredSchema's output is not plain JSON: ${formatIssuePath(problem.path)} is ${problem.what}. ` +
      "Structured outputs are stored in the agent state as JSON, so the schema's output type must be JSON too " +
      '(e.g. an ISO date string instead of a transform to Date).',
  };
}

/**
 * Where `value` stops being plain JSON (what `JSON.stringify` would change or drop: a Date, a Map, a
 * class instance, a bigint, NaN, `undefined` in an array…), or `null` when it is plain JSON. An object
 * property whose value is `undefined` counts as absent (an optional key).
 */
function notPlainJson(value: unknown, path: PropertyKey[]): { path: PropertyKey[]; what: string } | null {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return null;
  if (typeof value === 'number')
    return Number.isFinite(value) ? null : { path, what: Number.isNaN(value) ? 'NaN' : String(value) };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!(i in value) || value[i] === undefined) return { path: [...path, i], what: 'undefined' };
      const inner = notPlainJson(value[i], [...path, i]);
      if (inner) return inner;
    }
    return null;
  }
  if (typeof value === 'object') {
    const proto = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      const name = (value as object).constructor?.name;
      return { path, what: name ? `a ${name}` : 'not a plain object' };
    }
    for (const [key, inner] of Object.entries(value)) {
      if (inner === undefined) continue;
      const problem = notPlainJson(inner, [...path, key]);
      if (problem) return problem;
    }
    return null;
  }
  return { path, what: typeof value === 'bigint' ? 'a bigint' : `a ${typeof value}` };
}
