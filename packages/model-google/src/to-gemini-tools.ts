import {
  FunctionCallingConfigMode,
  type FunctionDeclaration,
  type Tool,
  type ToolConfig,
} from '@google/genai';
import type { JSONSchema, ToolChoice, ToolSchema } from '@agentkit/core';

/** Keys Gemini's `parametersJsonSchema` does not accept at the top of a schema. */
const droppedTopLevelKeys = new Set(['$schema', '$id']);

/** The JSON Schema of a tool's input as Gemini accepts it (always an object schema). */
function parametersSchema(schema: JSONSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) if (!droppedTopLevelKeys.has(key)) out[key] = value;
  if (out.type === undefined) out.type = 'object';
  if (out.type === 'object' && out.properties === undefined) out.properties = {};
  return out;
}

/**
 * Maps agentkit tool schemas onto one Gemini tool of function declarations, passing each input schema
 * as `parametersJsonSchema` (plain JSON Schema, which Gemini accepts as is, unlike the OpenAPI-subset
 * `parameters`). Returns `undefined` when there are no tools.
 */
export function toGeminiTools(tools: readonly ToolSchema[]): Tool[] | undefined {
  if (tools.length === 0) return undefined;
  const functionDeclarations: FunctionDeclaration[] = tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parametersJsonSchema: parametersSchema(tool.inputSchema),
  }));
  return [{ functionDeclarations }];
}

/**
 * Maps a tool choice onto Gemini's `toolConfig.functionCallingConfig`: `auto` → AUTO, `none` → NONE,
 * `required` → ANY, a named tool → ANY restricted to that name. Returns `undefined` when there are no tools
 * (Gemini rejects a function-calling config without function declarations).
 */
export function toGeminiToolConfig(choice: ToolChoice, tools: readonly ToolSchema[]): ToolConfig | undefined {
  if (tools.length === 0) return undefined;
  if (choice === 'auto') return { functionCallingConfig: { mode: FunctionCallingConfigMode.AUTO } };
  if (choice === 'none') return { functionCallingConfig: { mode: FunctionCallingConfigMode.NONE } };
  if (choice === 'required') return { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY } };
  return {
    functionCallingConfig: { mode: FunctionCallingConfigMode.ANY, allowedFunctionNames: [choice.name] },
  };
}
