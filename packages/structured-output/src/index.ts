export {
  structuredOutput,
  STRUCTURED_OUTPUT_PLUGIN_NAME,
  type StructuredOutputOptions,
  type StructuredOutputReplyData,
} from './structured-output-plugin';
export {
  STRUCTURED_OUTPUT_PLACEHOLDER,
  createGenerateStructuredOutputTool,
  type GenerateStructuredOutputToolOptions,
} from './generate-structured-output-tool';
export { fromJsonSchema } from './from-json-schema';
export { JsonSchemaValidator } from './json-schema-validator';
export type { OutputValidation } from './output-validation';
export { validateWithStandardSchema } from './standard-schema-validation';
export { stripTitles } from './strip-titles';
export { toJsonSchema } from './to-json-schema';
export { StructuredSchemaError } from './structured-schema-error';
export { formatIssuePath, formatValidationError, type OutputIssue } from './format-validation-error';
export {
  GENERATE_STRUCTURED_OUTPUT_DESCRIPTION,
  GENERATE_STRUCTURED_OUTPUT_TOOL_NAME,
  STRUCTURED_OUTPUT_FORCED_HINT_SUFFIX,
  STRUCTURED_OUTPUT_HINT_SOURCE,
  STRUCTURED_OUTPUT_HINT_SUFFIX,
  STRUCTURED_OUTPUT_SUCCESS_TEXT,
  structuredOutputHint,
} from './texts';
