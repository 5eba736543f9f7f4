import type { JSONSchema, JSONValue } from '@agentkit/core';
import { type OutputUnit, Validator } from '@cfworker/json-schema';
import { fillDefaults } from './fill-defaults';
import { formatValidationError, pointerToPath, type OutputIssue } from './format-validation-error';
import { checkJsonSchema } from './json-schema-check';
import type { OutputValidation } from './output-validation';

const CACHE_LIMIT = 32;

/** Keywords whose errors only say that something below them failed; the failures below are reported. */
const WRAPPERS = new Set([
  'properties',
  'patternProperties',
  'additionalProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'unevaluatedProperties',
  'unevaluatedItems',
  'dependentSchemas',
  'dependencies',
  'propertyNames',
  '$ref',
  '$recursiveRef',
  'allOf',
]);

interface Compiled {
  schema: JSONSchema;
  validator: Validator;
}

/**
 * Validates structured outputs against a plain JSON Schema (draft 2020-12) with `@cfworker/json-schema`,
 * which interprets schemas and generates no code (so it runs where `new Function` is refused: Cloudflare
 * Workers, strict CSP). This is the path used after a restart, when only the stored JSON Schema is left:
 * declared `default`s are filled in, unknown keys are kept (unless the schema forbids them), `format`s
 * the validator knows (`email`, `uri`, `date-time`, `uuid`…) are checked, custom refinements of the
 * original schema are gone. Checked schemas are cached by their JSON text.
 */
export class JsonSchemaValidator {
  private readonly cache = new Map<string, Compiled>();

  /**
   * Checks and prepares `schema` (throws an `Error` naming the problem when it is not a usable JSON
   * Schema). A `$schema` keyword is ignored: every schema is read as draft 2020-12. `schema` is never
   * modified.
   */
  compile(schema: JSONSchema): Compiled {
    const key = JSON.stringify(schema);
    const cached = this.cache.get(key);
    if (cached) return cached;
    // A copy: the validator annotates the schema objects it is given, and this one lives in agent state.
    const { $schema: _ignored, ...rest } = JSON.parse(key) as JSONSchema;
    checkJsonSchema(rest);
    // One validator per schema, so two schemas with the same `$id` never collide.
    const compiled = { schema: rest, validator: new Validator(rest as never, '2020-12', false) };
    if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, compiled);
    return compiled;
  }

  /**
   * Checks a copy of `value` (never mutated), filling the declared defaults into the copy. Throws when the
   * schema is not usable.
   */
  check(
    schema: JSONSchema,
    value: unknown,
  ): { ok: true; value: JSONValue } | { ok: false; issues: OutputIssue[] } {
    const compiled = this.compile(schema);
    const copy = structuredClone(value);
    fillDefaults(compiled.schema, copy);
    const result = compiled.validator.validate(copy);
    if (result.valid) return { ok: true, value: copy as JSONValue };
    return { ok: false, issues: issuesOf(result.errors) };
  }

  /** Like {@link JsonSchemaValidator.check}, with the problems formatted as the tool error the model sees. */
  validate(schema: JSONSchema, value: unknown): OutputValidation {
    let result: ReturnType<JsonSchemaValidator['check']>;
    try {
      result = this.check(schema, value);
    } catch (error) {
      return {
        ok: false,
        error: `SchemaError: The structured-output schema is invalid: ${(error as Error).message}`,
      };
    }
    return result.ok ? result : { ok: false, error: formatValidationError(result.issues) };
  }
}

/** The validator's output as short problems the model can act on, one per failing keyword. */
function issuesOf(errors: readonly OutputUnit[]): OutputIssue[] {
  const seen = new Set<string>();
  const issues: OutputIssue[] = [];
  for (const error of errors) {
    if (WRAPPERS.has(error.keyword)) continue;
    const message = messageOf(error);
    const key = `${error.instanceLocation} ${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ path: pointerToPath(error.instanceLocation.replace(/^#/, '')), message });
  }
  return issues;
}

function messageOf(error: OutputUnit): string {
  const text = error.error;
  switch (error.keyword) {
    case 'required': {
      const name = /property "(.*)"\.$/.exec(text)?.[1];
      return name === undefined ? text : `must have required property '${name}'`;
    }
    case 'type': {
      const expected = /Expected (.*)\.$/.exec(text)?.[1];
      return expected === undefined ? text : `must be ${expected.replaceAll('"', '')}`;
    }
    case 'format': {
      const format = /format "(.*)"\.$/.exec(text)?.[1];
      return format === undefined ? text : `must match format "${format}"`;
    }
    case 'false':
      return 'is not allowed here';
    default:
      return text.replace(/\.$/, '');
  }
}
