import { describe, expect, it } from 'vitest';
import { stripTitles } from './strip-titles';

describe('stripTitles', () => {
  it('removes title keywords at every depth and keeps properties named title', () => {
    const schema = {
      title: 'Report',
      type: 'object',
      properties: {
        title: { type: 'string', title: 'Title' },
        items: { type: 'array', title: 'Items', items: { $ref: '#/$defs/Item', title: 'ItemRef' } },
        extra: { type: 'object', additionalProperties: { type: 'number', title: 'Num' } },
        either: {
          anyOf: [
            { type: 'string', title: 'S' },
            { type: 'null', title: 'N' },
          ],
        },
        tuple: { type: 'array', prefixItems: [{ type: 'string', title: 'First' }] },
      },
      $defs: {
        Item: { title: 'Item', type: 'object', properties: { name: { type: 'string', title: 'Name' } } },
      },
      required: ['title'],
    };
    expect(stripTitles(schema)).toEqual({
      type: 'object',
      properties: {
        title: { type: 'string' },
        items: { type: 'array', items: { $ref: '#/$defs/Item' } },
        extra: { type: 'object', additionalProperties: { type: 'number' } },
        either: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        tuple: { type: 'array', prefixItems: [{ type: 'string' }] },
      },
      $defs: { Item: { type: 'object', properties: { name: { type: 'string' } } } },
      required: ['title'],
    });
  });

  it('strips conditionals, not, draft-07 definitions and tuple items, keeps boolean schemas', () => {
    const schema = {
      type: 'object',
      if: { title: 'If', properties: { a: { const: 1 } } },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's `then` keyword
      then: { title: 'Then', required: ['b'] },
      else: false,
      not: { title: 'Not', required: ['c'] },
      definitions: { D: { title: 'D', type: 'string' } },
      properties: { t: { type: 'array', items: [{ title: 'I0', type: 'string' }, true] } },
    };
    expect(stripTitles(schema)).toEqual({
      type: 'object',
      if: { properties: { a: { const: 1 } } },
      // biome-ignore lint/suspicious/noThenProperty: JSON Schema's `then` keyword
      then: { required: ['b'] },
      else: false,
      not: { required: ['c'] },
      definitions: { D: { type: 'string' } },
      properties: { t: { type: 'array', items: [{ type: 'string' }, true] } },
    });
  });

  it('does not touch title inside data keywords (default, examples, const, enum)', () => {
    const schema = {
      type: 'object',
      default: { title: 'kept' },
      examples: [{ title: 'kept too' }],
      properties: { kind: { const: { title: 'x' } }, e: { enum: [{ title: 'y' }] } },
    };
    expect(stripTitles(schema)).toEqual(schema);
  });

  it('does not mutate its input', () => {
    const schema = { title: 'T', type: 'object', properties: { a: { title: 'A', type: 'string' } } };
    const before = structuredClone(schema);
    const out = stripTitles(schema);
    expect(schema).toEqual(before);
    (out.properties as Record<string, Record<string, unknown>>).a!.type = 'number';
    expect(schema.properties.a.type).toBe('string');
  });
});
