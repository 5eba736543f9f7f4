import { AgentkitError } from '@agentkit/core';

/**
 * The schema a reply was asked for cannot be used: it has no JSON Schema form, is not an object schema,
 * is not valid JSON Schema, or the copy stored in the agent state is corrupt. Thrown from the plugin's
 * `beforeReply` hook, so the reply ends with `finishedReason: 'error'` naming the plugin.
 */
export class StructuredSchemaError extends AgentkitError {
  constructor(message: string, options?: { cause?: unknown | undefined }) {
    super('STRUCTURED_SCHEMA', message, options);
  }
}
