import type { JSONSchema } from '@agentkit/core';

/**
 * The default prompt that asks the model for a continuation summary: it gives
 * the current time and asks for a self-contained summary (absolute dates, exact names and pointers, every
 * piece of in-flight work). It is sent as the last user message of the summary call only; `{current_time}` is
 * replaced with the current ISO time.
 */
export const DEFAULT_COMPRESSION_PROMPT =
  '<system-hint>You have been working on the task described above but have not yet completed it. ' +
  'Now write a continuation summary that will allow you to resume work efficiently in a future context window ' +
  'where the conversation history will be replaced with this summary. ' +
  'Your summary should be structured, concise, and actionable.\n' +
  'The current time is {current_time}.\n' +
  'The history this summary stands for will be gone, and the summary itself may be summarized again later, ' +
  'so write every reference so that it can be understood on its own:\n' +
  "- Time: turn relative expressions ('today', 'yesterday', 'recently', 'now') into absolute dates based on " +
  'the current time above, including relative dates copied from an earlier summary.\n' +
  '- Names & pointers: give file paths, symbol names, issue or PR numbers, ids, URLs, commands and error ' +
  "messages verbatim instead of phrases such as 'this file', 'the approach above' or 'the failing tests'.\n" +
  '- In-flight work: list everything that is still open, above all tool calls or background jobs whose ' +
  'results have not arrived yet (with their ids and what each one does), and for each item say who asked ' +
  'for it (the user or you) and whether it is done, pending or blocked.\n' +
  '</system-hint>';

/**
 * The default template that turns the summary fields into the summary text. Placeholders are the field
 * names in braces (`{task_overview}`); `{{` and `}}` are literal braces.
 */
export const DEFAULT_SUMMARY_TEMPLATE =
  '<system-info>Here is a summary of your previous work\n' +
  '# Task Overview\n{task_overview}\n\n' +
  '# Current State\n{current_state}\n\n' +
  '# Important Discoveries\n{important_discoveries}\n\n' +
  '# Next Steps\n{next_steps}\n\n' +
  '# Context to Preserve\n{context_to_preserve}</system-info>';

/** The JSON Schema of the five summary fields the model fills in (all required strings). Frozen: shared. */
export const DEFAULT_SUMMARY_SCHEMA: JSONSchema = deepFreeze({
  type: 'object',
  title: 'SummarySchema',
  description: 'The compressed memory model, used to generate summary of old memories',
  properties: {
    task_overview: {
      type: 'string',
      title: 'Task Overview',
      description:
        "The user's core request and success criteria.\nAny clarifications or constraints they specified",
    },
    current_state: {
      type: 'string',
      title: 'Current State',
      description:
        'What has been completed so far.\nFile created, modified, or analyzed (with paths if relevant).\nKey outputs or artifacts produced.',
    },
    important_discoveries: {
      type: 'string',
      title: 'Important Discoveries',
      description:
        "Technical constraints or requirements uncovered.\nDecisions made and their rationale.\nErrors encountered and how they were resolved.\nWhat approaches were tried that didn't work (and why)",
    },
    next_steps: {
      type: 'string',
      title: 'Next Steps',
      description:
        'Specific actions needed to complete the task.\nAny blockers or open questions to resolve.\nPriority order if multiple steps remain',
    },
    context_to_preserve: {
      type: 'string',
      title: 'Context To Preserve',
      description:
        "User preferences or style requirements.\nDomain-specific details that aren't obvious.\nAny promises made to the user",
    },
  },
  required: ['task_overview', 'current_state', 'important_discoveries', 'next_steps', 'context_to_preserve'],
  additionalProperties: false,
});

/** The summary used when the summary call fails and there is no previous summary to keep. */
export const TRUNCATION_SUMMARY =
  '<system-info>Some earlier messages were truncated for limited context.</system-info>';

/** The name of the forced tool of the summary call. */
export const SUMMARY_TOOL_NAME = 'generate_structured_output';

/** The reminder appended to the summary when the compressed messages were offloaded to `path`. */
export function offloadReminder(path: string): string {
  return `<system-reminder>The compressed context is offloaded to '${path}', you can refer to it when needed.</system-reminder>`;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}
