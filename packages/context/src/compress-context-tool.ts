import { defineTool, type PluginTool, type PluginToolContext, type ToolResult } from '@agentkit/core';

/** The name of the autonomous compression tool. */
export const COMPRESS_CONTEXT_TOOL_NAME = 'CompressContext';

/** The tool's description, as the model reads it. */
export const COMPRESS_CONTEXT_DESCRIPTION = `Compress older conversation context into a continuation summary while preserving the recent context needed for upcoming work.

Use this tool only after a runtime-state \`<context-compression>\` reminder explicitly recommends it. The reminder indicates that the context is large enough for compression and that no task was in progress when it was produced.

Do not call this tool while any task is currently \`in_progress\`, even if an older compression reminder is still present. Finish or pause the active task first. Pending tasks do not prevent compression when you are between tasks.

Keep the current context when exact earlier details are still needed verbatim.

Conversation history is replaced only after a summary is generated successfully.`;

/** The tool's answers. */
export const COMPRESS_CONTEXT_TEXTS = {
  success: 'Context compressed successfully.',
  tooShort: 'The context is not long enough to compress, so it remains unchanged.',
  failed: (error: string) => `Context compression failed: ${error}`,
} as const;

/**
 * Builds the `CompressContext` tool, a plugin tool. `compress` does the work for the call (its
 * {@link PluginToolContext}: the call id, the signal and the plugin's context) and says whether anything was
 * compressed; it throws on failure, which the model sees as an error result.
 */
export function createCompressContextTool(
  compress: (ctx: PluginToolContext) => Promise<boolean>,
): PluginTool<Record<string, never>> {
  return defineTool<Record<string, never>, PluginToolContext>({
    name: COMPRESS_CONTEXT_TOOL_NAME,
    description: COMPRESS_CONTEXT_DESCRIPTION,
    inputSchema: { type: 'object', properties: {}, additionalProperties: false },
    concurrencySafe: false,
    idempotent: true, // changes only the state (and appends to the archive): safe to run again
    async execute(_input, ctx): Promise<ToolResult> {
      try {
        const done = await compress(ctx);
        return {
          output: done ? COMPRESS_CONTEXT_TEXTS.success : COMPRESS_CONTEXT_TEXTS.tooShort,
          state: 'success',
        };
      } catch (error) {
        if (ctx.signal.aborted) throw error;
        const message = error instanceof Error ? error.message : String(error);
        return { output: COMPRESS_CONTEXT_TEXTS.failed(message), state: 'error' };
      }
    },
  });
}
