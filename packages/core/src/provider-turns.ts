import type { DataBlock, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock } from './blocks';
import type { Msg } from './msg';

/**
 * A conversation turn as providers see it. Adapters map these one to one onto their wire format:
 * - `user`: text and data (user input, the compression summary, and hints, which go to the model as
 *   user messages at their position so prompt caching of earlier turns keeps working);
 * - `assistant`: what the model produced (thinking, text, data, tool calls), in order;
 * - `tool`: results of the calls of the preceding assistant turn.
 */
export type ProviderTurn =
  | { role: 'user'; content: Array<TextBlock | DataBlock> }
  | { role: 'assistant'; content: Array<TextBlock | ThinkingBlock | DataBlock | ToolCallBlock> }
  | { role: 'tool'; results: ToolResultBlock[] };

/**
 * Splits messages into provider turns. One reply message holds several model turns (text and calls,
 * then results, then more text…); this restores them. Hint blocks become user turns.
 */
export function toProviderTurns(messages: readonly Msg[]): ProviderTurn[] {
  const turns: ProviderTurn[] = [];
  let current: ProviderTurn | undefined;
  const open = <R extends ProviderTurn['role']>(role: R): Extract<ProviderTurn, { role: R }> => {
    if (current?.role !== role) {
      current = (role === 'tool' ? { role, results: [] } : { role, content: [] }) as ProviderTurn;
      turns.push(current);
    }
    return current as Extract<ProviderTurn, { role: R }>;
  };
  for (const msg of messages) {
    current = undefined;
    if (msg.role !== 'assistant') {
      const content = msg.content.filter(
        (b): b is TextBlock | DataBlock => b.type === 'text' || b.type === 'data',
      );
      if (content.length) open('user').content.push(...content);
      current = undefined;
      continue;
    }
    // Hints wait until the model turn they follow is complete (all its tool results), so a hint added
    // between two results never splits a tool turn, which providers reject.
    let hints: Array<TextBlock | DataBlock> = [];
    const flushHints = () => {
      if (hints.length) open('user').content.push(...hints);
      hints = [];
    };
    for (const block of msg.content) {
      switch (block.type) {
        case 'hint':
          hints.push(
            ...(typeof block.hint === 'string'
              ? [{ type: 'text' as const, id: block.id, text: block.hint }]
              : block.hint),
          );
          break;
        case 'tool_result':
          open('tool').results.push(block);
          break;
        default:
          flushHints();
          open('assistant').content.push(block);
      }
    }
    flushHints();
  }
  return turns;
}
