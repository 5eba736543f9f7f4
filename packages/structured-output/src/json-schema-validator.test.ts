import { describe, expect, it } from 'vitest';
import { JsonSchemaValidator } from './json-schema-validator';

const weather = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'Weather',
  type: 'object',
  properties: {
    city: { type: 'string', title: 'City' },
    temperature: { type: 'number', default: 20 },
    tags: { type: 'array', default: [], items: { type: 'string' } },
    nested: { type: 'object', properties: { unit: { type: 'string', default: 'C' } }, default: {} },
  },
  required: ['city'],
};

describe('JsonSchemaValidator', () => {
  it('fills declared defaults (also nested) and keeps unknown keys', () => {
    const v = new JsonSchemaValidator();
    const input = { city: 'Hangzhou', extra: 'kept' };
    const result = v.validate(weather, input);
    expect(result).toEqual({
      ok: true,
      value: { city: 'Hangzhou', temperature: 20, tags: [], nested: { unit: 'C' }, extra: 'kept' },
    });
    expect(input).toEqual({ city: 'Hangzhou', extra: 'kept' });
  });

  it('reports every problem with its JSON path', () => {
    const v = new JsonSchemaValidator();
    expect(v.validate(weather, { temperature: 'hot', tags: ['a', 1] })).toEqual({
      ok: false,
      error:
        'ValidationError: Structured output validation failed with error: ' +
        "$: must have required property 'city'; $.temperature: must be number; $.tags[1]: must be string",
    });
  });

  it('honours additionalProperties: false when the schema declares it', () => {
    const v = new JsonSchemaValidator();
    const schema = { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false };
    expect(v.validate(schema, { a: 'x', b: 1 })).toEqual({
      ok: false,
      error:
        'ValidationError: Structured output validation failed with error: $: must NOT have additional properties',
    });
  });

  it('reads draft-07 $schema documents as 2020-12 and tolerates unknown keywords and formats', () => {
    const v = new JsonSchemaValidator();
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: { email: { type: 'string', format: 'email', 'x-ui': 'input' } },
    };
    expect(v.validate(schema, { email: 'not an email' })).toEqual({
      ok: true,
      value: { email: 'not an email' },
    });
  });

  it('returns a clear error for a schema that does not compile', () => {
    const v = new JsonSchemaValidator();
    const result = v.validate({ type: 'object', properties: { a: { type: 'nope' } } }, {});
    expect(result.ok).toBe(false);
    expect(!result.ok && result.error).toMatch(/^SchemaError: The structured-output schema is invalid: /);
  });

  it('caches compiled schemas by content and never mixes two schemas with the same $id', () => {
    const v = new JsonSchemaValidator();
    const a = {
      $id: 'https://example.com/weather.json',
      type: 'object',
      properties: { n: { type: 'number' } },
    };
    const b = {
      $id: 'https://example.com/weather.json',
      type: 'object',
      properties: { n: { type: 'string' } },
    };
    expect(v.compile(a)).toBe(v.compile(structuredClone(a)));
    expect(v.validate(a, { n: 1 }).ok).toBe(true);
    expect(v.validate(b, { n: 1 }).ok).toBe(false);
  });
});
