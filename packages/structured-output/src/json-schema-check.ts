import type { JSONSchema } from '@agentkit/core';

const TYPES = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);
const NUMBERS = [
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'minContains',
  'maxContains',
];
const SCHEMA = ['additionalProperties', 'additionalItems', 'unevaluatedProperties', 'unevaluatedItems'];
const SCHEMA_ONLY = ['not', 'if', 'then', 'else', 'contains', 'propertyNames'];
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The schema a local `$ref` (`#`, `#/$defs/x`, `#/definitions/x`, any JSON Pointer) points at. */
export function resolveLocalRef(root: unknown, ref: string): unknown {
  if (ref === '#') return root;
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = root;
  for (const raw of ref.slice(2).split('/')) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node) && !Array.isArray(node)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function compiles(pattern: unknown, where: string): void {
  if (typeof pattern !== 'string') throw new Error(`${where} must be a string`);
  try {
    new RegExp(pattern, 'u');
  } catch (error) {
    throw new Error(`${where} is not a valid regular expression: ${(error as Error).message}`);
  }
}

function check(schema: unknown, where: string, root: JSONSchema): void {
  if (typeof schema === 'boolean') return;
  if (!isObject(schema)) throw new Error(`${where} must be a schema (an object or a boolean)`);
  if ('type' in schema) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    for (const t of types)
      if (typeof t !== 'string' || !TYPES.has(t))
        throw new Error(`${where}/type: ${JSON.stringify(t)} is not a JSON Schema type`);
  }
  if (
    'required' in schema &&
    !(Array.isArray(schema.required) && schema.required.every((r) => typeof r === 'string'))
  )
    throw new Error(`${where}/required must be a list of property names`);
  if ('enum' in schema && !Array.isArray(schema.enum)) throw new Error(`${where}/enum must be a list`);
  for (const key of NUMBERS)
    if (key in schema && typeof schema[key] !== 'number' && typeof schema[key] !== 'boolean')
      throw new Error(`${where}/${key} must be a number`);
  if ('multipleOf' in schema && !(typeof schema.multipleOf === 'number' && schema.multipleOf > 0))
    throw new Error(`${where}/multipleOf must be a number above 0`);
  if ('pattern' in schema) compiles(schema.pattern, `${where}/pattern`);
  if ('$ref' in schema) {
    if (typeof schema.$ref !== 'string') throw new Error(`${where}/$ref must be a string`);
    if (schema.$ref.startsWith('#') && resolveLocalRef(root, schema.$ref) === undefined)
      throw new Error(`${where}/$ref: '${schema.$ref}' points at nothing in the schema`);
  }
  for (const key of [...SCHEMA, ...SCHEMA_ONLY])
    if (key in schema) check(schema[key], `${where}/${key}`, root);
  if ('items' in schema) {
    if (Array.isArray(schema.items))
      for (const [i, s] of schema.items.entries()) check(s, `${where}/items/${i}`, root);
    else check(schema.items, `${where}/items`, root);
  }
  for (const key of SCHEMA_MAPS) {
    if (!(key in schema)) continue;
    const map = schema[key];
    if (!isObject(map)) throw new Error(`${where}/${key} must be an object of schemas`);
    for (const [name, sub] of Object.entries(map)) {
      if (key === 'patternProperties') compiles(name, `${where}/patternProperties key`);
      check(sub, `${where}/${key}/${name}`, root);
    }
  }
  for (const key of SCHEMA_LISTS) {
    if (!(key in schema)) continue;
    const list = schema[key];
    if (!Array.isArray(list) || (key !== 'prefixItems' && list.length === 0))
      throw new Error(`${where}/${key} must be a non-empty list of schemas`);
    for (const [i, s] of list.entries()) check(s, `${where}/${key}/${i}`, root);
  }
}

/**
 * Checks that `schema` is a usable JSON Schema (draft 2020-12): known types, well-formed keywords,
 * regular expressions that compile, local `$ref`s that resolve. Throws an `Error` naming the first
 * problem's location (`#/properties/a/type: "nope" is not a JSON Schema type`).
 */
export function checkJsonSchema(schema: JSONSchema): void {
  check(schema, '#', schema);
}
