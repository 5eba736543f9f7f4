import { type AgentState, getBlocks, type ToolCallBlock } from '@agentkit/core';

/** The tool calls of the current reply that wait for the user's confirmation (empty when nothing is paused). */
export function askingCalls(state: AgentState): ToolCallBlock[] {
  const id = state.reply?.id;
  const msg = id === undefined ? undefined : state.context.findLast((m) => m.id === id);
  return msg ? getBlocks(msg, 'tool_call').filter((c) => c.state === 'asking') : [];
}
