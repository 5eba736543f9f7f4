import type { JSONValue } from '@agentkit/core';

/**
 * The outcome of validating a structured output: the value to store (JSON, with defaults filled), or
 * the error text the model sees as the tool result. `schemaProblem` marks an error the model cannot fix
 * (the schema itself produces an output that is not plain JSON): the reply ends with an error instead.
 */
export type OutputValidation =
  | { ok: true; value: JSONValue }
  | { ok: false; error: string; schemaProblem?: true | undefined };
