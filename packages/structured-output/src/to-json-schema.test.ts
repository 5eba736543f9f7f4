import type { StandardSchemaV1 } from '@agentkit/core';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { z as z3 } from 'zod/v3';
import { JsonSchemaValidator } from './json-schema-validator';
import { StructuredSchemaError } from './structured-schema-error';
import { toJsonSchema } from './to-json-schema';

const validator = new JsonSchemaValidator();

describe('toJsonSchema', () => {
  it('refuses a zod 3 schema with an error that names the zod version needed', () => {
    expect(() => toJsonSchema(z3.object({ city: z3.string() }), validator)).toThrow(
      new StructuredSchemaError(
        'The structuredSchema cannot be used: it is a zod 3 schema, and agentkit needs zod ≥ 4.2 (the first version whose schemas describe themselves as JSON Schema): install zod@^4.2.',
      ),
    );
  });

  it("uses a Standard Schema's input-side JSON Schema (defaults, optional keys not required)", () => {
    const schema = z.object({ city: z.string(), temperature: z.number().default(20) });
    expect(toJsonSchema(schema, validator)).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { city: { type: 'string' }, temperature: { type: 'number', default: 20 } },
      required: ['city'],
    });
  });

  it('handles recursive schemas ($defs and $ref), which the validator then follows', () => {
    interface Node {
      name: string;
      children: Node[];
    }
    const node: z.ZodType<Node> = z.object({ name: z.string(), children: z.array(z.lazy(() => node)) });
    const json = toJsonSchema(z.object({ root: node }), validator);
    expect(JSON.stringify(json)).toContain('$ref');
    expect(
      validator.validate(json, { root: { name: 'a', children: [{ name: 'b', children: [] }] } }).ok,
    ).toBe(true);
    expect(validator.validate(json, { root: { name: 'a', children: [{ name: 1, children: [] }] } })).toEqual({
      ok: false,
      error:
        'ValidationError: Structured output validation failed with error: $.root.children[0].name: must be string',
    });
  });

  it('accepts a plain JSON Schema object and returns a JSON copy', () => {
    const plain = { type: 'object', properties: { a: { type: 'string' } } };
    const json = toJsonSchema(plain, validator);
    expect(json).toEqual(plain);
    expect(json).not.toBe(plain);
  });

  it('rejects unusable schemas with StructuredSchemaError', () => {
    const noJson: StandardSchemaV1 = {
      '~standard': { version: 1, vendor: 'hand-made', validate: (value) => ({ value }) },
    };
    expect(() => toJsonSchema(noJson, validator)).toThrow(StructuredSchemaError);
    expect(() => toJsonSchema(noJson, validator)).toThrow(
      /\(from 'hand-made'\) cannot describe itself as JSON Schema/,
    );
    expect(() => toJsonSchema(z.object({ at: z.date() }), validator)).toThrow(
      /cannot be converted to JSON Schema/,
    );
    expect(() => toJsonSchema(z.array(z.string()), validator)).toThrow(/must describe an object/);
    expect(() => toJsonSchema('schema', validator)).toThrow(
      /must be a Standard Schema or a JSON Schema object/,
    );
    expect(() => toJsonSchema({ type: 'object', properties: { a: { type: 'nope' } } }, validator)).toThrow(
      /structured-output JSON Schema is invalid/,
    );
    expect(() => toJsonSchema({ type: 'object', default: { n: 1n } }, validator)).toThrow(/not plain JSON/);
  });

  it('gives errors a stable code', () => {
    try {
      toJsonSchema(z.string(), validator);
      expect.unreachable();
    } catch (error) {
      expect((error as StructuredSchemaError).code).toBe('STRUCTURED_SCHEMA');
      expect((error as Error).name).toBe('StructuredSchemaError');
    }
  });
});
