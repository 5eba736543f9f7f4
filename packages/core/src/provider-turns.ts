import type { DataBlock, TextBlock, ThinkingBlock, ToolCallBlock, ToolResultBlock } from './blocks';
import type { Msg } from './msg';

/**
 * A conversation turn as providers see it. Adapters map these one to one onto their wire format:
 * - `user`: text and data (user input, the compression summary, and hints, which go to the model as
 *   user messages at their position so prompt caching of earlier turns keeps working). With `name`: what
 *   another agent said (see {@link toProviderTurns}), already attributed in its text; an adapter whose
 *   provider has a speaker-name field sets it too;
 * - `assistant`: what the model produced (thinking, text, data, tool calls), in order;
 * - `tool`: results of the calls of the preceding assistant turn.
 */
export type ProviderTurn =
  | { role: 'user'; content: Array<TextBlock | DataBlock>; name?: string | undefined }
  | { role: 'assistant'; content: Array<TextBlock | ThinkingBlock | DataBlock | ToolCallBlock> }
  | { role: 'tool'; results: ToolResultBlock[] };

/** Options of {@link toProviderTurns}. */
export interface ProviderTurnOptions {
  /**
   * The agent the request is for (`ModelRequest.agentName`). An assistant message with another `name` is
   * another speaker's (e.g. an agent's reply passed to `observe`), never the model's own turn: it becomes
   * a user turn with that `name`, its text led by `name: `, without thinking, tool calls or results. An
   * unnamed one (`assistantMsg()`'s default name `assistant`) stays the model's own, as does every
   * assistant message without this option.
   */
  agentName?: string | undefined;
}

/**
 * Splits messages into provider turns. One reply message holds several model turns (text and calls,
 * then results, then more text…); this restores them. Hint blocks become user turns; other speakers'
 * messages become attributed user turns (see {@link ProviderTurnOptions.agentName}).
 */
export function toProviderTurns(messages: readonly Msg[], options: ProviderTurnOptions = {}): ProviderTurn[] {
  const self = options.agentName;
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
    if (msg.role === 'assistant' && self !== undefined && msg.name !== self && msg.name !== 'assistant') {
      const content = attributed(msg);
      if (content.length) turns.push({ role: 'user', name: msg.name, content });
      continue;
    }
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

/** Another speaker's text and data, its first text led by its name (`Bob: …`). */
function attributed(msg: Msg): Array<TextBlock | DataBlock> {
  const content = msg.content.filter(
    (b): b is TextBlock | DataBlock => b.type === 'text' || b.type === 'data',
  );
  const first = content.findIndex((b) => b.type === 'text');
  if (first < 0)
    return content.length ? [{ type: 'text', id: `${msg.id}.name`, text: `${msg.name}:` }, ...content] : [];
  const text = content[first] as TextBlock;
  content[first] = { ...text, text: `${msg.name}: ${text.text}` };
  return content;
}
