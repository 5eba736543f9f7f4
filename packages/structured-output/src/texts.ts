/** The name of the tool that submits the structured output. */
export const GENERATE_STRUCTURED_OUTPUT_TOOL_NAME = 'GenerateStructuredOutput';

/** The tool's description, as the model reads it. */
export const GENERATE_STRUCTURED_OUTPUT_DESCRIPTION =
  "Generate the required structured output by this tool. This tool is equipped only when you're required to generate structured output. The input schema represents the required structured output. When you are ready to generate a structured output, call this tool with the structured output as input. When you're equipped this tool, you MUST end your response with calling this tool. Once this tool is called, your current response is finished and the structured output is sent to the user.\n\n# When to Use This Tool\n- When you collect enough resources and information.";

/** What the tool answers once the output is valid. */
export const STRUCTURED_OUTPUT_SUCCESS_TEXT = 'Structured output generated successfully.';

/** The `source` of the requirement hint (a JSON label). */
export const STRUCTURED_OUTPUT_HINT_SOURCE =
  '{"label": "System", "sublabel": "Structured Output Requirement"}';

/** The hint suffix before `maxIters`. */
export const STRUCTURED_OUTPUT_HINT_SUFFIX =
  'Call it when you are ready to generate the final structured output.';

/** The hint suffix from `maxIters` on, when the call is forced. */
export const STRUCTURED_OUTPUT_FORCED_HINT_SUFFIX =
  'You have reached the maximum reasoning-acting iterations, so call this tool at once to generate the final structured output.';

/** The requirement hint persisted before every model call while the output is missing. */
export function structuredOutputHint(forced: boolean): string {
  const suffix = forced ? STRUCTURED_OUTPUT_FORCED_HINT_SUFFIX : STRUCTURED_OUTPUT_HINT_SUFFIX;
  return `<system-reminder>You're required to generate structured output by calling the '${GENERATE_STRUCTURED_OUTPUT_TOOL_NAME}' tool. ${suffix}</system-reminder>`;
}
