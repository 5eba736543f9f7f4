import type { Msg, ToolCallBlock } from '@agentkit/core';

/** A streak of identical failing calls. */
export interface RepeatedToolError {
  toolName: string;
  /** How many of the newest failing calls share the newest call's arguments. */
  count: number;
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Tool-call arguments in a form where key order and whitespace don't matter: valid JSON is re-serialised
 * with sorted keys and no whitespace; anything else (or a missing input) is compared trimmed.
 */
export function normalizeToolArguments(raw: string | undefined | null): string {
  const text = raw ?? '';
  try {
    return canonicalJson(JSON.parse(text));
  } catch {
    return text.trim();
  }
}

/**
 * Looks for a streak of failing calls in a reply message: the last tool result must be an error; the
 * streak is the run of error results of that same tool going backwards (a success or another tool ends
 * it). When the streak has at least `limit` results and at least `limit` of the newest share the newest
 * call's normalised arguments, returns the tool and that count; otherwise `null`.
 */
export function findRepeatedToolError(message: Msg | undefined, limit: number): RepeatedToolError | null {
  if (!message) return null;
  const results = message.content.filter((b) => b.type === 'tool_result');
  const last = results[results.length - 1];
  if (last?.state !== 'error') return null;
  const toolName = last.name;
  const streak: string[] = [];
  for (let i = results.length - 1; i >= 0; i--) {
    const r = results[i]!;
    if (r.state !== 'error' || r.name !== toolName) break;
    streak.push(r.id);
  }
  if (streak.length < limit) return null;
  const calls = new Map<string, ToolCallBlock>();
  for (const b of message.content) if (b.type === 'tool_call') calls.set(b.id, b);
  const args = streak.map((id) => normalizeToolArguments(calls.get(id)?.input));
  let count = 0;
  while (count < args.length && args[count] === args[0]) count++;
  return count < limit ? null : { toolName, count };
}
