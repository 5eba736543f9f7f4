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

/** What a scan looks for: injections by `source`, and calls of the task tools. */
export interface ScanOptions {
  source: string;
  taskToolNames: readonly string[];
  hasUnfinishedTasks: boolean;
}

/**
 * Reads one message's blocks last first into `found` (assistant messages only): the newest earlier
 * injection with a `<current-time>`, and whether a `<tasks>` injection or a task tool call shows the agent
 * knows its tasks. Returns true once both answers are known.
 */
export function readMessage(msg: Msg, options: ScanOptions, found: ContextScan): boolean {
  if (msg.role !== 'assistant') return false;
  for (let j = msg.content.length - 1; j >= 0; j--) {
    const block = msg.content[j]!;
    if (block.type === 'hint' && block.source === options.source) {
      const text = hintText(block.hint);
      if (found.lastTimeText === null && text.includes('<current-time>')) found.lastTimeText = text;
      if (text.includes('<tasks>')) found.awareOfTasks = true;
    } else if (block.type === 'tool_call' && options.taskToolNames.includes(block.name)) {
      found.awareOfTasks = true;
    }
    if (found.lastTimeText !== null && found.awareOfTasks) return true;
  }
  return false;
}

/**
 * Walks the context newest message first (assistant messages only) and each message's blocks last
 * first, looking for earlier injections (hints whose `source` equals `source`) and task tool calls.
 * Stops as soon as both answers are known.
 */
export function scanContext(context: readonly Msg[], options: ScanOptions): ContextScan {
  const found: ContextScan = { lastTimeText: null, awareOfTasks: !options.hasUnfinishedTasks };
  for (let i = context.length - 1; i >= 0; i--) if (readMessage(context[i]!, options, found)) break;
  return found;
}
