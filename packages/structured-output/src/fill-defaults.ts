import { resolveLocalRef } from './json-schema-check';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** How deep `$ref`s are followed on one value (a schema may refer to itself). */
const MAX_DEPTH = 64;

function fill(schema: unknown, value: unknown, root: unknown, depth: number): void {
  if (!isObject(schema) || depth > MAX_DEPTH) return;
  if (typeof schema.$ref === 'string') fill(resolveLocalRef(root, schema.$ref), value, root, depth + 1);
  if (Array.isArray(schema.allOf)) for (const sub of schema.allOf) fill(sub, value, root, depth + 1);
  if (isObject(value) && isObject(schema.properties)) {
    for (const [key, sub] of Object.entries(schema.properties)) {
      if (!isObject(sub) || key === '__proto__') continue;
      if (!Object.hasOwn(value, key) && 'default' in sub) value[key] = structuredClone(sub.default);
      if (Object.hasOwn(value, key)) fill(sub, value[key], root, depth + 1);
    }
  }
  if (Array.isArray(value)) {
    const prefix = Array.isArray(schema.prefixItems) ? schema.prefixItems : [];
    value.forEach((item, i) => {
      fill(i < prefix.length ? prefix[i] : schema.items, item, root, depth + 1);
    });
  }
}

/**
 * Fills the `default`s a JSON Schema declares into `value`, in place, where validators that fill defaults do:
 * a missing property gets its schema's default (a copy), then every present property, array item and
 * tuple item is filled from its own schema, following local `$ref`s and `allOf`. Defaults inside
 * `anyOf`/`oneOf`/`not` are ignored: which branch applies is not known before validation.
 */
export function fillDefaults(schema: unknown, value: unknown): void {
  fill(schema, value, schema, 0);
}
