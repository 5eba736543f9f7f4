import type { DataBlock, Msg, TextBlock, ToolResultBlock } from '@agentkit/core';
import type { AssistantMessage, ContentPart, Message } from '@ag-ui/core';

/**
 * Which AG-UI assistant message a tool call belongs to, the same way while streaming and when converting
 * a saved message: each text block is an assistant message of its own (id: the block id); tool calls
 * join the message of the text before them, or the first call's own message when no text came since the
 * last tool result.
 */
export class AssistantSegments {
  private current: string | null = null;

  /** A text block opens a message: its id. */
  text(blockId: string): string {
    this.current = blockId;
    return blockId;
  }

  /** The message a tool call belongs to. */
  call(toolCallId: string): string {
    this.current ??= toolCallId;
    return this.current;
  }

  /** A tool result ends the segment: what follows is a new message. */
  result(): void {
    this.current = null;
  }
}

/** The id of the AG-UI tool message that carries a call's result. */
export const resultMessageId = (toolCallId: string): string => `${toolCallId}.result`;

/**
 * agentkit messages as AG-UI messages (for `MESSAGES_SNAPSHOT`), with the same ids the event mapping
 * streams: user and system messages keep their id; a reply becomes reasoning messages (thinking blocks,
 * unless `reasoning: false`), assistant messages (text blocks, with the tool calls that follow them) and
 * tool messages (results, id `<call id>.result`). Hints and model-generated data blocks are left out.
 */
export function toAgUiMessages(messages: readonly Msg[], options: { reasoning?: boolean } = {}): Message[] {
  const reasoning = options.reasoning ?? true;
  const out: Message[] = [];
  for (const msg of messages) {
    if (msg.role === 'user') {
      const blocks = msg.content.filter(
        (b): b is TextBlock | DataBlock => b.type === 'text' || b.type === 'data',
      );
      out.push({ id: msg.id, role: 'user', content: agUiContent(blocks) });
      continue;
    }
    if (msg.role === 'system') {
      out.push({ id: msg.id, role: 'system', content: textOf(msg.content) });
      continue;
    }
    const segments = new AssistantSegments();
    const byId = new Map<string, AssistantMessage>();
    for (const block of msg.content) {
      if (block.type === 'thinking') {
        if (reasoning) out.push({ id: block.id, role: 'reasoning', content: block.thinking });
      } else if (block.type === 'text') {
        const message: AssistantMessage = {
          id: segments.text(block.id),
          role: 'assistant',
          content: block.text,
        };
        byId.set(message.id, message);
        out.push(message);
      } else if (block.type === 'tool_call') {
        const id = segments.call(block.id);
        let message = byId.get(id);
        if (!message) {
          message = { id, role: 'assistant' };
          byId.set(id, message);
          out.push(message);
        }
        (message.toolCalls ??= []).push({
          id: block.id,
          type: 'function',
          function: { name: block.name, arguments: block.input },
        });
      } else if (block.type === 'tool_result') {
        segments.result();
        if (block.state !== 'running') out.push(toolMessage(block.id, block.state, block.output));
      }
    }
  }
  return out;
}

/** The AG-UI tool message of a result. */
export function toolMessage(
  toolCallId: string,
  state: ToolResultBlock['state'],
  output: ReadonlyArray<TextBlock | DataBlock>,
): Message {
  return {
    id: resultMessageId(toolCallId),
    role: 'tool',
    toolCallId,
    content: agUiContent(output),
    metadata: { agentkit: { state } },
  };
}

/** Blocks as AG-UI content: a string when they are all text, else parts (text and media). */
export function agUiContent(blocks: ReadonlyArray<TextBlock | DataBlock>): string | ContentPart[] {
  if (blocks.every((b) => b.type === 'text')) return textOf(blocks);
  return blocks.map((b): ContentPart => {
    if (b.type === 'text') return { type: 'text', text: b.text };
    const type = partType(b.source.mediaType);
    const source =
      b.source.type === 'base64'
        ? { type: 'data' as const, value: b.source.data, mimeType: b.source.mediaType }
        : { type: 'url' as const, value: b.source.url, mimeType: b.source.mediaType };
    return { type, source, ...(b.name ? { metadata: { filename: b.name } } : {}) };
  });
}

function partType(mediaType: string): 'image' | 'audio' | 'video' | 'document' {
  if (mediaType.startsWith('image/')) return 'image';
  if (mediaType.startsWith('audio/')) return 'audio';
  if (mediaType.startsWith('video/')) return 'video';
  return 'document';
}

function textOf(blocks: ReadonlyArray<{ type: string }>): string {
  return blocks
    .filter((b): b is TextBlock => b.type === 'text')
    .map((b) => b.text)
    .join('');
}
