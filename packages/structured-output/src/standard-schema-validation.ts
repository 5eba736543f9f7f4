import type { JSONValue, StandardSchemaV1 } from '@agentkit/core';
import { formatValidationError } from './format-validation-error';
import type { OutputValidation } from './output-validation';

/**
 * Validates a structured output in process with the schema object itself (zod, valibot, arktype…):
 * whatever the schema does on parse happens (zod fills defaults, drops unknown keys, runs refinements).
 * The parsed value is stored as JSON (`Date` → ISO string, like `JSON.stringify`).
 */
export async function validateWithStandardSchema(
  schema: StandardSchemaV1,
  value: unknown,
): Promise<OutputValidation> {
  let result: StandardSchemaV1.Result<unknown>;
  try {
    result = await schema['~standard'].validate(value);
  } catch (error) {
    return { ok: false, error: String(error) };
  }
  if (result.issues) {
    return {
      ok: false,
      error: formatValidationError(
        result.issues.map((issue) => ({
          path: (issue.path ?? []).map((segment) => (typeof segment === 'object' ? segment.key : segment)),
          message: issue.message,
        })),
      ),
    };
  }
  return toJson(result.value);
}

function toJson(value: unknown): OutputValidation {
  try {
    const text = JSON.stringify(value);
    if (text === undefined)
      return { ok: false, error: 'ValidationError: The structured output is not JSON-serialisable.' };
    return { ok: true, value: JSON.parse(text) as JSONValue };
  } catch (error) {
    return {
      ok: false,
      error: `ValidationError: The structured output is not JSON-serialisable: ${(error as Error).message}`,
    };
  }
}
