import type { JSONSchema, StandardSchemaV1, Tool, ToolResult } from '@agentkit/core';
import type { JsonSchemaValidator } from './json-schema-validator';
import { validateWithStandardSchema } from './standard-schema-validation';
import { stripTitles } from './strip-titles';
import {
  GENERATE_STRUCTURED_OUTPUT_DESCRIPTION,
  GENERATE_STRUCTURED_OUTPUT_TOOL_NAME,
  STRUCTURED_OUTPUT_SUCCESS_TEXT,
} from './texts';

/** The closing text of a reply that produced its structured output (a placeholder: the result is `structuredOutput`). */
export const STRUCTURED_OUTPUT_PLACEHOLDER = 'The required structured output is generated.';

/** What {@link createGenerateStructuredOutputTool} needs. */
export interface GenerateStructuredOutputToolOptions {
  /** The stored JSON Schema of the reply (titles included). */
  jsonSchema: JSONSchema;
  /** The schema object, when the reply was started in this process; validation then uses it. */
  liveSchema?: StandardSchemaV1 | null | undefined;
  /** Validates against `jsonSchema` when there is no live schema. */
  validator: JsonSchemaValidator;
  /**
   * Called when the schema itself is at fault (its output is not plain JSON), before the call's error
   * result is saved; the plugin ends the reply with that error instead of letting the model retry. Keyed
   * `'<reply id> <tool-call id>'`: one plugin instance may serve many agents.
   */
  onSchemaProblem?: ((callKey: string, message: string) => void) | undefined;
}

/**
 * The `GenerateStructuredOutput` tool of one reply. Its input schema is the requested schema without
 * titles (and without `$schema`). A valid call ends the reply (`ctx.finishReply`) with the validated
 * output; an invalid one returns an error result with every problem (path and message), so the model can
 * correct itself.
 */
export function createGenerateStructuredOutputTool(
  options: GenerateStructuredOutputToolOptions,
): Tool<unknown> {
  const { jsonSchema, liveSchema, validator, onSchemaProblem } = options;
  const { $schema: _ignored, ...withoutDialect } = stripTitles(jsonSchema);
  return {
    name: GENERATE_STRUCTURED_OUTPUT_TOOL_NAME,
    description: GENERATE_STRUCTURED_OUTPUT_DESCRIPTION,
    inputSchema: withoutDialect,
    jsonSchema: withoutDialect,
    concurrencySafe: true,
    idempotent: true, // validates and records the result in the state only
    needsConfirmation: false,
    async execute(input, ctx): Promise<string | ToolResult> {
      const result = liveSchema
        ? await validateWithStandardSchema(liveSchema, input)
        : validator.validate(jsonSchema, input);
      if (!result.ok) {
        if (result.schemaProblem) onSchemaProblem?.(`${ctx.replyId} ${ctx.toolCallId}`, result.error);
        return { output: result.error, state: 'error' };
      }
      ctx.finishReply({ structuredOutput: result.value, text: STRUCTURED_OUTPUT_PLACEHOLDER });
      return STRUCTURED_OUTPUT_SUCCESS_TEXT;
    },
  };
}
