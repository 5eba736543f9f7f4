import { describe, expect, it } from 'vitest';
import { fromJsonSchema } from './from-json-schema';
import { StructuredSchemaError } from './structured-schema-error';

describe('fromJsonSchema', () => {
  const schema = fromJsonSchema<{ city: string; unit: string }>({
    type: 'object',
    properties: { city: { type: 'string' }, unit: { type: 'string', default: 'C' } },
    required: ['city'],
  });

  it('validates: defaults filled, unknown keys kept', async () => {
    expect(await schema['~standard'].validate({ city: 'Hangzhou', extra: 1 })).toEqual({
      value: { city: 'Hangzhou', unit: 'C', extra: 1 },
    });
  });

  it('reports issues with their paths', async () => {
    expect(await schema['~standard'].validate({ unit: 3 })).toEqual({
      issues: [
        { path: [], message: "must have required property 'city'" },
        { path: ['unit'], message: 'must be string' },
      ],
    });
  });

  it('describes itself as the JSON Schema it was given (a copy)', () => {
    const json = schema['~standard'].jsonSchema!.input({ target: 'draft-2020-12' });
    expect(json).toMatchObject({ type: 'object', required: ['city'] });
    (json as { required: string[] }).required.push('x');
    expect(schema['~standard'].jsonSchema!.input({ target: 'draft-2020-12' })).toMatchObject({
      required: ['city'],
    });
  });

  it('rejects a schema that is not an object schema or does not compile', () => {
    expect(() => fromJsonSchema({ type: 'string' })).toThrow(StructuredSchemaError);
    expect(() => fromJsonSchema({ type: 'object', properties: { a: { type: 'nope' } } })).toThrow(/invalid/);
  });
});
