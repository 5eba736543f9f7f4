import type { JSONSchema, JSONValue } from '@agentkit/core';
import Ajv2020 from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { formatValidationError, pointerToPath, type OutputIssue } from './format-validation-error';
import type { OutputValidation } from './output-validation';

const CACHE_LIMIT = 32;

/**
 * Validates structured outputs against a plain JSON Schema (draft 2020-12) with ajv: the path used after
 * a restart, when only the stored JSON Schema is left. Declared `default`s are filled in, unknown keys
 * are kept (unless the schema forbids them), custom refinements of the original schema are gone.
 * Compiled schemas are cached by their JSON text.
 */
export class JsonSchemaValidator {
  private readonly cache = new Map<string, ValidateFunction>();

  /**
   * Compiles `schema` (throws ajv's error when it is not a valid JSON Schema). A `$schema` keyword is
   * ignored: every schema is read as draft 2020-12.
   */
  compile(schema: JSONSchema): ValidateFunction {
    const key = JSON.stringify(schema);
    const cached = this.cache.get(key);
    if (cached) return cached;
    const { $schema: _ignored, ...rest } = schema;
    // One ajv instance per schema, so two schemas with the same `$id` never collide.
    const ajv = new Ajv2020({
      useDefaults: true,
      allErrors: true,
      strict: false,
      validateFormats: false,
      logger: false,
      // Model output is hostile input: `required: ['constructor']` must not be met by Object.prototype.
      ownProperties: true,
    });
    const validate = ajv.compile(rest);
    if (this.cache.size >= CACHE_LIMIT) this.cache.delete(this.cache.keys().next().value as string);
    this.cache.set(key, validate);
    return validate;
  }

  /**
   * Checks a copy of `value` (never mutated), filling the declared defaults into the copy. Throws when the
   * schema does not compile.
   */
  check(
    schema: JSONSchema,
    value: unknown,
  ): { ok: true; value: JSONValue } | { ok: false; issues: OutputIssue[] } {
    const validate = this.compile(schema);
    const copy = structuredClone(value);
    if (validate(copy)) return { ok: true, value: copy as JSONValue };
    return { ok: false, issues: (validate.errors ?? []).map(ajvIssue) };
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

function ajvIssue(error: ErrorObject): OutputIssue {
  return { path: pointerToPath(error.instancePath), message: error.message ?? error.keyword };
}
