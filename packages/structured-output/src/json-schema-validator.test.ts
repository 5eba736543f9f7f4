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
      error: 'ValidationError: Structured output validation failed with error: $.b: is not allowed here',
    });
  });

  it('reads draft-07 $schema documents as 2020-12, tolerates unknown keywords and formats, checks known formats', () => {
    const v = new JsonSchemaValidator();
    const schema = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      properties: {
        email: { type: 'string', format: 'email', 'x-ui': 'input' },
        code: { type: 'string', format: 'made-up-format' },
      },
    };
    expect(v.validate(schema, { email: 'ana@example.com', code: 'anything' })).toEqual({
      ok: true,
      value: { email: 'ana@example.com', code: 'anything' },
    });
    expect(v.validate(schema, { email: 'not an email' })).toEqual({
      ok: false,
      error:
        'ValidationError: Structured output validation failed with error: $.email: must match format "email"',
    });
  });

  it('fills defaults through $ref, allOf and array items, and never touches the schema', () => {
    const v = new JsonSchemaValidator();
    const schema = {
      type: 'object',
      $defs: { step: { type: 'object', properties: { done: { type: 'boolean', default: false } } } },
      allOf: [{ properties: { owner: { type: 'string', default: 'nobody' } } }],
      properties: {
        steps: { type: 'array', items: { $ref: '#/$defs/step' } },
        pair: { type: 'array', prefixItems: [{ $ref: '#/$defs/step' }, { type: 'number' }] },
        __proto__: { type: 'object', default: { polluted: true } },
      },
    };
    const before = JSON.stringify(schema);
    const result = v.validate(schema, { steps: [{}, { done: true }], pair: [{}, 2] });
    expect(result).toEqual({
      ok: true,
      value: { owner: 'nobody', steps: [{ done: false }, { done: true }], pair: [{ done: false }, 2] },
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(JSON.stringify(schema)).toBe(before);
  });

  it('validates recursive schemas', () => {
    const v = new JsonSchemaValidator();
    const tree = {
      type: 'object',
      properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#' } } },
      required: ['name'],
    };
    expect(v.validate(tree, { name: 'a', children: [{ name: 'b', children: [{ name: 'c' }] }] }).ok).toBe(
      true,
    );
    expect(v.validate(tree, { name: 'a', children: [{ children: [] }] })).toEqual({
      ok: false,
      error:
        "ValidationError: Structured output validation failed with error: $.children[0]: must have required property 'name'",
    });
  });

  it('reports ranges, enums and several types in words the model can act on', () => {
    const v = new JsonSchemaValidator();
    const schema = {
      type: 'object',
      properties: {
        n: { type: 'integer', minimum: 3 },
        k: { enum: ['a', 'b'] },
        t: { type: ['string', 'null'] },
      },
    };
    expect(v.validate(schema, { n: 1, k: 'c', t: 5 })).toEqual({
      ok: false,
      error:
        'ValidationError: Structured output validation failed with error: $.n: 1 is less than 3; ' +
        '$.k: Instance does not match any of ["a","b"]; $.t: must be string, null',
    });
  });

  it('returns a clear error for a schema that is not usable', () => {
    const v = new JsonSchemaValidator();
    const invalid: Array<[Record<string, unknown>, RegExp]> = [
      [
        { type: 'object', properties: { a: { type: 'nope' } } },
        /#\/properties\/a\/type: "nope" is not a JSON Schema type/,
      ],
      [
        { type: 'object', properties: { a: { type: 'string', pattern: '(' } } },
        /#\/properties\/a\/pattern is not a valid regular expression/,
      ],
      [
        { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } },
        /'#\/\$defs\/missing' points at nothing/,
      ],
      [{ type: 'object', required: 'a' }, /#\/required must be a list/],
      [{ type: 'object', anyOf: [] }, /#\/anyOf must be a non-empty list/],
      [{ type: 'object', properties: { a: 5 } }, /#\/properties\/a must be a schema/],
    ];
    for (const [schema, message] of invalid) {
      const result = v.validate(schema, {});
      expect(result.ok).toBe(false);
      expect(!result.ok && result.error).toMatch(/^SchemaError: The structured-output schema is invalid: /);
      expect(!result.ok && result.error).toMatch(message);
    }
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
