import type { JSONValue } from '@agentkit/core';

/**
 * The outcome of validating a structured output: the value to store (JSON, with defaults filled), or
 * the error text the model sees as the tool result.
 */
export type OutputValidation = { ok: true; value: JSONValue } | { ok: false; error: string };
