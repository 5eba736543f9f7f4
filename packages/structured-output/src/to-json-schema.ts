import { type JSONSchema, type StandardSchemaV1, zodVersionProblem } from '@agentkit/core';
import type { JsonSchemaValidator } from './json-schema-validator';
import { StructuredSchemaError } from './structured-schema-error';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** True when `value` is a Standard Schema (it has a `~standard` property). */
export function isStandardSchemaLike(value: unknown): value is StandardSchemaV1 {
  return (typeof value === 'object' || typeof value === 'function') && value !== null && '~standard' in value;
}

/**
 * The plain JSON Schema (draft 2020-12) of a requested structured-output schema: a Standard Schema's
 * input side (`~standard.jsonSchema.input`, e.g. zod ≥ 4.2), or a JSON Schema object as given. The
 * result is plain JSON (safe to store in the agent state), describes an object, and is a usable JSON Schema.
 * @throws {StructuredSchemaError} when none of this holds.
 */
export function toJsonSchema(schema: unknown, validator: JsonSchemaValidator): JSONSchema {
  let raw: unknown;
  const problem = zodVersionProblem(schema);
  if (problem) throw new StructuredSchemaError(`The structuredSchema cannot be used: ${problem}.`);
  if (isStandardSchemaLike(schema)) {
    const converter = schema['~standard'].jsonSchema;
    if (!converter || typeof converter.input !== 'function')
      throw new StructuredSchemaError(
        `The structuredSchema (from '${schema['~standard'].vendor}') cannot describe itself as JSON Schema ` +
          '(no `~standard.jsonSchema`). Use zod ≥ 4.2 or another Standard JSON Schema library, or pass a JSON Schema object.',
      );
    try {
      raw = converter.input({ target: 'draft-2020-12' });
    } catch (cause) {
      throw new StructuredSchemaError(
        `The structuredSchema cannot be converted to JSON Schema: ${(cause as Error).message}`,
        { cause },
      );
    }
  } else {
    raw = schema;
  }
  if (!isObject(raw))
    throw new StructuredSchemaError(
      'The structuredSchema must be a Standard Schema or a JSON Schema object.',
    );
  let json: JSONSchema;
  try {
    json = JSON.parse(JSON.stringify(raw)) as JSONSchema;
  } catch (cause) {
    throw new StructuredSchemaError(
      `The structuredSchema's JSON Schema is not plain JSON: ${(cause as Error).message}`,
      {
        cause,
      },
    );
  }
  assertUsableJsonSchema(json, validator);
  return json;
}

/**
 * Checks that a JSON Schema (a requested one, or one read back from the agent state) describes an object
 * and is usable (see {@link JsonSchemaValidator.compile}). @throws {StructuredSchemaError}
 */
export function assertUsableJsonSchema(
  json: unknown,
  validator: JsonSchemaValidator,
): asserts json is JSONSchema {
  if (!isObject(json)) throw new StructuredSchemaError('A structured-output JSON Schema must be an object.');
  if (json.type !== 'object')
    throw new StructuredSchemaError(
      `A structured-output schema must describe an object (root \`type: 'object'\`), got ${JSON.stringify(json.type ?? null)}: ` +
        'the model submits it as the arguments of a tool call.',
    );
  try {
    validator.compile(json);
  } catch (cause) {
    throw new StructuredSchemaError(
      `The structured-output JSON Schema is invalid: ${(cause as Error).message}`,
      { cause },
    );
  }
}
