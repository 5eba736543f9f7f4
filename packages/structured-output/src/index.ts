// The public surface: the factory, its options, its reply data, its error, the tool's name, and
// `fromJsonSchema` for plain JSON Schema. Validation, schema conversion and texts are internal.
export {
  structuredOutput,
  STRUCTURED_OUTPUT_PLUGIN_NAME,
  type StructuredOutputOptions,
  type StructuredOutputReplyData,
} from './structured-output-plugin';
export { GENERATE_STRUCTURED_OUTPUT_TOOL_NAME } from './texts';
export { fromJsonSchema } from './from-json-schema';
export { StructuredSchemaError } from './structured-schema-error';
