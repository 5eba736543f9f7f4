import type { JSONSchema } from './json';

/**
 * Checks `value` against the common subset of JSON Schema (type, required, properties,
 * additionalProperties: false, items, enum, const, minimum/maximum, minLength/maxLength), looking at own
 * properties only (a `constructor` or `__proto__` key is an ordinary name here). Returns the
 * first problems found as `path: message` strings; empty when valid. Core keeps no validator dependency;
 * use a Standard Schema (zod…) on the tool for full validation.
 */
export function checkJsonSchema(schema: JSONSchema, value: unknown, path = '$'): string[] {
  // Boolean schemas (`properties: { legacy: false }`): `false` accepts nothing, `true` anything.
  if ((schema as unknown) === false) return [`${path}: is not allowed`];
  if (typeof schema !== 'object' || schema === null) return [];
  const problems: string[] = [];
  const s = schema as Record<string, any>;
  if (s.const !== undefined && JSON.stringify(s.const) !== JSON.stringify(value))
    problems.push(`${path}: must be ${JSON.stringify(s.const)}`);
  if (Array.isArray(s.enum) && !s.enum.some((e: unknown) => JSON.stringify(e) === JSON.stringify(value)))
    problems.push(`${path}: must be one of ${s.enum.map((e: unknown) => JSON.stringify(e)).join(', ')}`);
  const types: string[] | undefined =
    s.type === undefined ? undefined : Array.isArray(s.type) ? s.type : [s.type];
  if (types && !types.some((t) => isType(value, t))) {
    problems.push(`${path}: must be ${types.join(' or ')}, got ${typeName(value)}`);
    return problems;
  }
  if (typeof value === 'number') {
    if (typeof s.minimum === 'number' && value < s.minimum) problems.push(`${path}: must be ≥ ${s.minimum}`);
    if (typeof s.maximum === 'number' && value > s.maximum) problems.push(`${path}: must be ≤ ${s.maximum}`);
  }
  if (typeof value === 'string') {
    if (typeof s.minLength === 'number' && value.length < s.minLength)
      problems.push(`${path}: must have at least ${s.minLength} characters`);
    if (typeof s.maxLength === 'number' && value.length > s.maxLength)
      problems.push(`${path}: must have at most ${s.maxLength} characters`);
  }
  if (Array.isArray(value) && s.items && typeof s.items === 'object') {
    value.forEach((item, i) => {
      problems.push(...checkJsonSchema(s.items, item, `${path}[${i}]`));
    });
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    // Own properties only, on both sides: inherited names (`constructor`, `toString`, `__proto__`…) are
    // neither present in the value nor declared by the schema.
    const obj = value as Record<string, unknown>;
    for (const key of Array.isArray(s.required) ? s.required : [])
      if (!Object.hasOwn(obj, key)) problems.push(`${path}: missing required property '${key}'`);
    const props: Record<string, JSONSchema> = s.properties ?? {};
    for (const [key, v] of Object.entries(obj)) {
      if (Object.hasOwn(props, key)) problems.push(...checkJsonSchema(props[key]!, v, `${path}.${key}`));
      else if (s.additionalProperties === false) problems.push(`${path}: unexpected property '${key}'`);
      else if (typeof s.additionalProperties === 'object')
        problems.push(...checkJsonSchema(s.additionalProperties, v, `${path}.${key}`));
    }
  }
  return problems;
}

function isType(value: unknown, type: string): boolean {
  switch (type) {
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case 'array':
      return Array.isArray(value);
    case 'integer':
      return Number.isInteger(value);
    case 'null':
      return value === null;
    default:
      return typeof value === type;
  }
}

function typeName(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value;
}
