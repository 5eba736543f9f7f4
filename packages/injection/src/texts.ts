/** The default template: the fields wrapped in a `<system-reminder>`. */
export const DEFAULT_TEMPLATE =
  '<system-reminder>Treat the following as the ground truth at this point of the conversation. Anything stated earlier is outdated, and a later reminder, if any, supersedes this one:\n{runtime_state}\n</system-reminder>';

/** The default repeated-tool-error hint; `{tool_name}` and `{count}` are replaced. */
export const DEFAULT_TOOL_RETRIES_HINT =
  "The last {count} calls to '{tool_name}' with the same arguments all failed. Stop retrying the same call as-is, check the error message and try a different approach.";

/**
 * The default `source` of injected hints. A plain string, compared with equality to recognise earlier
 * injections in the context.
 */
export const DEFAULT_INJECTION_SOURCE = '{"label": "System", "sublabel": "Runtime State"}';

/** The task tools whose calls in the context show the agent already knows its tasks. */
export const DEFAULT_TASK_TOOL_NAMES: readonly string[] = ['TaskCreate', 'TaskGet', 'TaskList', 'TaskUpdate'];

/** The `<tasks>` field. */
export function tasksText(inProgress: number, pending: number): string {
  return `You have ${inProgress} in-progress tasks and ${pending} pending tasks. Use \`TaskList\` to view them if you don't know.`;
}

/** The `<context-length>` field. */
export function contextLengthText(inputTokens: number, triggerTokens: number): string {
  return `Your current context contains ${inputTokens} tokens. When reaching ${triggerTokens} tokens, your context will be compressed.`;
}

/**
 * The `<context-compression>` field, added to `<context-length>` when the agent has the
 * `CompressContext` tool and no task is in progress: an explicit recommendation, as the tool's
 * description asks for.
 */
export const CONTEXT_COMPRESSION_TEXT =
  'No task is in progress, so this is a good moment to compress your context: call `CompressContext` now to replace older context with a continuation summary, instead of waiting for the automatic compression.';
