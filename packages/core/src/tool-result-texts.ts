// What the model reads in the result of a call that did not run to its end: agentkit's own texts.

/** The result text of a call the user's interrupt stopped (or never let start). */
export const INTERRUPTED_TEXT =
  '<system-reminder>The tool call has been interrupted by the user.</system-reminder>';
/** The result text of a call that started but whose result was never recorded: its process stopped. */
export const UNCERTAIN_TEXT =
  '<system-reminder>The tool call was interrupted before its result was recorded (the process running it stopped). It may or may not have taken effect: check before repeating it.</system-reminder>';
/** The result text of a call left open by a failed reply. */
export const FAILED_TEXT =
  '<system-reminder>The tool call was not executed because the reply failed.</system-reminder>';
/** The result text of a call the user (or a hook) denied. */
export const deniedText = (name: string) =>
  `<system-reminder>The execution of tool "${name}" is denied by user!</system-reminder>`;
/** The result text of a call the reply's own time limit (`ReplyOptions.timeoutMs`) stopped. */
export const DEADLINE_TEXT =
  '<system-reminder>The tool call was stopped: the reply reached its time limit.</system-reminder>';
/** The result text of a call that ran past its tool's `timeoutMs`. */
export const timedOutText = (name: string, ms: number) =>
  `<system-reminder>The tool "${name}" did not finish within its time limit of ${ms} ms and was stopped.</system-reminder>`;
/** The result text of a call to a tool the agent does not have. */
export const notFoundText = (name: string) => `ToolNotFoundError: The tool named '${name}' doesn't exist.`;
/** Why the calls of a response past `limits.maxResponseChars` did not run (also the hint after it). */
export const responseCutOffText = (limit: string) =>
  `<system-reminder>Your response was cut off: it exceeded the limit of ${limit} per response. None of its tool calls was run. Answer again, more briefly.</system-reminder>`;
/** The result text of a call whose arguments exceeded `limits.maxToolInputChars`. */
export const inputTooLongText = (name: string, limit: number) =>
  `<system-reminder>The call to tool "${name}" was not run: its arguments exceeded the limit of ${limit} characters, and were dropped. Send smaller arguments.</system-reminder>`;
/** The result text of a call past `limits.maxToolCallsPerResponse`. */
export const tooManyCallsText = (limit: number) =>
  `<system-reminder>This tool call was not run: a response may make at most ${limit} tool calls. Make fewer calls at a time.</system-reminder>`;
