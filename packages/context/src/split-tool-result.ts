import type { DataBlock, TextBlock, ToolResultBlock } from '@agentkit/core';

/** The two parts of a tool result that is too long. */
export interface ToolResultSplit {
  /** What stays in the context (same id, name and state; no metadata). */
  kept: ToolResultBlock;
  /** What is cut off, to offload. */
  offloaded: ToolResultBlock;
}

/**
 * Cuts a tool result at `limit` tokens, keeping whole blocks before the boundary. Returns
 * `null` when the output has ≤ `limit` tokens (or nothing would be cut).
 *
 * The boundary block is the one after the longest prefix of blocks that stays `< limit`. A boundary text block
 * is cut by proportion (`(limit − prefix) / blockTokens × length` characters are kept, appended to the previous
 * kept text block when there is one, and the rest is prepended to the first offloaded text block); a boundary
 * data block is offloaded whole. `countBlocks` counts the tokens of some output blocks.
 */
export function splitToolResult(
  result: ToolResultBlock,
  limit: number,
  countBlocks: (blocks: ReadonlyArray<TextBlock | DataBlock>) => number,
): ToolResultSplit | null {
  const output = result.output;
  if (output.length === 0 || countBlocks(output) <= limit) return null;

  let boundary = 0;
  for (let i = output.length - 1; i > 0; i--) {
    if (countBlocks(output.slice(0, i)) < limit) {
      boundary = i;
      break;
    }
  }
  const kept: Array<TextBlock | DataBlock> = output.slice(0, boundary).map((b) => ({ ...b }));
  const offloaded: Array<TextBlock | DataBlock> = output.slice(boundary + 1).map((b) => ({ ...b }));
  const block = output[boundary]!;
  if (block.type === 'text') {
    const before = countBlocks(kept);
    const delta = countBlocks([...kept, block]) - before;
    const room = limit - before;
    const len = block.text.length;
    let keep = delta <= 0 ? (room > 0 ? len : 0) : Math.trunc((room / delta) * len);
    keep = Math.max(0, Math.min(len, keep));
    // Never cut a surrogate pair in half.
    if (keep > 0 && keep < len && isHighSurrogate(block.text.charCodeAt(keep - 1))) keep--;
    const keptText = block.text.slice(0, keep);
    const cutText = block.text.slice(keep);
    if (keptText) {
      const last = kept[kept.length - 1];
      if (last?.type === 'text') last.text += keptText;
      else kept.push({ type: 'text', id: block.id, text: keptText });
    }
    if (cutText) {
      const first = offloaded[0];
      if (first?.type === 'text') first.text = cutText + first.text;
      else offloaded.unshift({ type: 'text', id: block.id, text: cutText });
    }
  } else {
    offloaded.unshift({ ...block });
  }
  if (offloaded.length === 0) return null;
  const base = {
    type: 'tool_result' as const,
    id: result.id,
    name: result.name,
    state: result.state,
    metadata: {},
  };
  return { kept: { ...base, output: kept }, offloaded: { ...base, output: offloaded } };
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * The note appended to a cut tool result. With a `path`, the agent is told where the rest is.
 */
export function truncationNote(path?: string): string {
  const where = path ? ` You can refer to the file in '${path}' for the truncated content if needed.` : '';
  return `\n<<<TRUNCATED>>>\n<system-reminder>The remaining content has been omitted for limited context.${where}</system-reminder>`;
}

/** Appends {@link truncationNote} to the kept part: to its last block when that is text, else as a new text block. */
export function withTruncationNote(
  kept: ToolResultBlock,
  note: string,
  newId: () => string,
): ToolResultBlock {
  const output = [...kept.output];
  const last = output[output.length - 1];
  if (last?.type === 'text') output[output.length - 1] = { ...last, text: last.text + note };
  else output.push({ type: 'text', id: newId(), text: note });
  return { ...kept, output };
}
