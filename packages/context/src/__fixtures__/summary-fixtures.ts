// Shared by the context tests: a scripted summary and text of a known token size.
import { type ScriptedResponse, toolCallChunk, usageChunk } from '@agentkit/core/testing';
import { SUMMARY_TOOL_NAME } from '../defaults';

/** The five summary fields, one letter each. */
export const FIELDS = {
  task_overview: 'T',
  current_state: 'S',
  important_discoveries: 'D',
  next_steps: 'N',
  context_to_preserve: 'P',
};

/** A model response that writes the summary through the summary tool, with its usage. */
export const summaryStep: ScriptedResponse = [
  toolCallChunk(SUMMARY_TOOL_NAME, FIELDS),
  usageChunk({ inputTokens: 50, outputTokens: 10 }),
];

/** `tokens` tokens of the character `ch` under core's estimate (4 bytes a token). */
export const chars = (ch: string, tokens: number) => ch.repeat(tokens * 4);
