import type { Tool, ToolContext } from './tool';
import { checkTool } from './tool-input';

/**
 * Defines a tool: infers `execute`'s input type (from `inputSchema`) and context (from an annotated
 * `ctx`, e.g. `(input, ctx: PluginToolContext<MyState>)` for a plugin's tool), and checks that the input
 * schema can be sent to a model and `timeoutMs` is valid (throws `ConfigError` otherwise, e.g. for a zod
 * schema older than 4.2).
 * @example
 * const add = defineTool({
 *   name: 'add', description: 'Add two numbers',
 *   inputSchema: z.object({ a: z.number(), b: z.number() }),
 *   execute: ({ a, b }) => String(a + b),
 * });
 */
export function defineTool<I, C extends ToolContext = ToolContext>(tool: Tool<I, C>): Tool<I, C> {
  // Fails here, not at the first reply, when the schema cannot give the model a JSON Schema.
  checkTool(tool);
  return tool;
}
