import type { HintBlock, Msg } from '@agentkit/core';

/** What the context says about earlier injections. */
export interface ContextScan {
  /** The text of the newest earlier injection that recorded a `<current-time>`, or `null`. */
  lastTimeText: string | null;
  /** Whether the agent knows its tasks: none unfinished, a task tool call, or an earlier `<tasks>` injection. */
  awareOfTasks: boolean;
}

/** The text of a hint: the string, or its text blocks concatenated. */
export function hintText(hint: HintBlock['hint']): string {
  if (typeof hint === 'string') return hint;
  let out = '';
  for (const part of hint) if (part.type === 'text') out += part.text;
  return out;
}

/**
 * Walks the context newest message first (assistant messages only) and each message's blocks last
 * first, looking for earlier injections (hints whose `source` equals `source`) and task tool calls.
 * Stops as soon as both answers are known.
 */
export function scanContext(
  context: readonly Msg[],
  options: { source: string; taskToolNames: readonly string[]; hasUnfinishedTasks: boolean },
): ContextScan {
  let lastTimeText: string | null = null;
  let awareOfTasks = !options.hasUnfinishedTasks;
  for (let i = context.length - 1; i >= 0; i--) {
    const msg = context[i]!;
    if (msg.role !== 'assistant') continue;
    for (let j = msg.content.length - 1; j >= 0; j--) {
      const block = msg.content[j]!;
      if (block.type === 'hint' && block.source === options.source) {
        const text = hintText(block.hint);
        if (lastTimeText === null && text.includes('<current-time>')) lastTimeText = text;
        if (text.includes('<tasks>')) awareOfTasks = true;
      } else if (block.type === 'tool_call' && options.taskToolNames.includes(block.name)) {
        awareOfTasks = true;
      }
      if (lastTimeText !== null && awareOfTasks) return { lastTimeText, awareOfTasks };
    }
  }
  return { lastTimeText, awareOfTasks };
}
