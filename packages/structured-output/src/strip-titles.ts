import type { JSONSchema } from '@agentkit/core';

// Keywords whose value is one subschema.
const SUBSCHEMA_KEYWORDS = [
  'items',
  'additionalItems',
  'additionalProperties',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contains',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'contentSchema',
] as const;
// Keywords whose value is a list of subschemas.
const SUBSCHEMA_LIST_KEYWORDS = ['prefixItems', 'allOf', 'anyOf', 'oneOf'] as const;
// Keywords whose value maps names to subschemas (the names themselves are data, never stripped).
const SUBSCHEMA_MAP_KEYWORDS = [
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
] as const;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A copy of `schema` without any `title` keyword, at every depth: properties, items, additional
 * properties, `$defs`, combinators and conditionals. A *property* named `title` is kept: only the
 * keyword goes. The input is not mutated.
 * @example stripTitles({ title: 'Report', type: 'object', properties: { title: { type: 'string', title: 'Title' } } })
 * // → { type: 'object', properties: { title: { type: 'string' } } }
 */
export function stripTitles(schema: JSONSchema): JSONSchema {
  return stripSchema(schema) as JSONSchema;
}

function stripSchema(node: unknown): unknown {
  // Boolean schemas and anything unexpected pass through as they are.
  if (!isObject(node)) return structuredClone(node);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'title') continue;
    if ((SUBSCHEMA_KEYWORDS as readonly string[]).includes(key)) {
      // Draft-07 tuple form `items: [..]` is a list of subschemas.
      out[key] = Array.isArray(value) ? value.map(stripSchema) : stripSchema(value);
    } else if ((SUBSCHEMA_LIST_KEYWORDS as readonly string[]).includes(key) && Array.isArray(value)) {
      out[key] = value.map(stripSchema);
    } else if ((SUBSCHEMA_MAP_KEYWORDS as readonly string[]).includes(key) && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, stripSchema(sub)]));
    } else {
      out[key] = structuredClone(value);
    }
  }
  return out;
}
