import type { JSONSchema, StandardSchemaV1 } from '@agentkit/core';
import { JsonSchemaValidator } from './json-schema-validator';
import { assertUsableJsonSchema } from './to-json-schema';

const validator = new JsonSchemaValidator();

/**
 * Wraps a plain JSON Schema as a typed Standard Schema, so `structuredSchema` accepts it and
 * `structuredOutput` gets the type you name. Validation uses {@link JsonSchemaValidator} (defaults filled, unknown keys kept, known formats checked).
 * @example
 * const result = await agent.reply('Weather in Hangzhou?', {
 *   structuredSchema: fromJsonSchema<{ city: string; temperature: number }>({
 *     type: 'object',
 *     properties: { city: { type: 'string' }, temperature: { type: 'number' } },
 *     required: ['city', 'temperature'],
 *   }),
 * });
 * result.structuredOutput?.temperature; // number
 * @throws {StructuredSchemaError} when `schema` is not an object schema or is not a usable JSON Schema.
 */
export function fromJsonSchema<T>(schema: JSONSchema): StandardSchemaV1<unknown, T> {
  const frozen = JSON.parse(JSON.stringify(schema)) as JSONSchema;
  assertUsableJsonSchema(frozen, validator);
  return {
    '~standard': {
      version: 1,
      vendor: '@agentkit/structured-output',
      validate(value) {
        const result = validator.check(frozen, value);
        if (result.ok) return { value: result.value as T };
        return { issues: result.issues };
      },
      jsonSchema: { input: () => structuredClone(frozen), output: () => structuredClone(frozen) },
    },
  };
}
