import type { DataBlock, ModelRequest, TextBlock, ToolChoice, ToolResultBlock } from '@agentkit/core';
import { type ProviderTurn, toProviderTurns } from '@agentkit/core/model';
import type {
  ChatCompletionAssistantMessageParam,
  ChatCompletionContentPart,
  ChatCompletionMessageParam,
  ChatCompletionTool,
  ChatCompletionToolChoiceOption,
} from 'openai/resources/chat/completions';
import { fileName, sendableUrl, unsupportedDataText } from './media';
import { readOpenaiData } from './provider-data';

/**
 * When thinking from earlier turns goes back to the server as `reasoning_content` (or `reasoning`) on
 * assistant messages. Only thinking that came in that field is ever sent back.
 * - `tool-loop` (default): on the assistant messages of the current reply that carry tool calls, which
 *   DeepSeek (thinking mode), Kimi and similar servers require to keep reasoning across tool calls;
 * - `all`: on every assistant message;
 * - `never`.
 */
export type ReasoningReplay = 'tool-loop' | 'all' | 'never';

/** Builds the Chat Completions `messages` of a request. */
export function toChatMessages(
  request: Pick<ModelRequest, 'systemPrompt' | 'messages' | 'agentName'>,
  replay: ReasoningReplay = 'tool-loop',
): ChatCompletionMessageParam[] {
  const options = { agentName: request.agentName };
  const out: ChatCompletionMessageParam[] = [];
  if (request.systemPrompt) out.push({ role: 'system', content: request.systemPrompt });
  // The current reply: the messages after the last user message.
  let lastUser = -1;
  request.messages.forEach((m, i) => {
    if (m.role === 'user') lastUser = i;
  });
  const parts: Array<[ProviderTurn[], boolean]> = [
    [toProviderTurns(request.messages.slice(0, lastUser + 1), options), false],
    [toProviderTurns(request.messages.slice(lastUser + 1), options), true],
  ];
  for (const [turns, current] of parts) {
    for (const turn of turns) {
      if (turn.role === 'user') out.push(userMessage(turn));
      else if (turn.role === 'tool') out.push(...toolMessages(turn.results));
      else {
        const msg = assistantMessage(turn.content, replay === 'all' || (replay === 'tool-loop' && current));
        if (msg) out.push(msg);
      }
    }
  }
  return out;
}

/**
 * A user turn; another agent's words (a turn with `name`) also carry Chat's `name` field, which tells
 * participants of one role apart (letters, digits, `_` and `-`, at most 64).
 */
function userMessage(turn: Extract<ProviderTurn, { role: 'user' }>): ChatCompletionMessageParam {
  const name = turn.name?.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
  return { role: 'user', content: userContent(turn.content), ...(name ? { name } : {}) };
}

function userContent(blocks: Array<TextBlock | DataBlock>): string | ChatCompletionContentPart[] {
  if (blocks.every((b) => b.type === 'text')) return blocks.map((b) => (b as TextBlock).text).join('\n');
  return blocks.map((b) => (b.type === 'text' ? { type: 'text', text: b.text } : dataPart(b)));
}

/** Maps a data block onto a Chat content part: images, wav/mp3 audio, PDFs; anything else as a note. */
export function dataPart(block: DataBlock): ChatCompletionContentPart {
  const { mediaType } = block.source;
  const url = sendableUrl(block);
  if (mediaType.startsWith('image/') && url) return { type: 'image_url', image_url: { url } };
  if (block.source.type === 'base64') {
    const format =
      mediaType === 'audio/wav' || mediaType === 'audio/x-wav'
        ? 'wav'
        : mediaType === 'audio/mpeg' || mediaType === 'audio/mp3'
          ? 'mp3'
          : undefined;
    if (format) return { type: 'input_audio', input_audio: { data: block.source.data, format } };
    if (mediaType === 'application/pdf' && url)
      return { type: 'file', file: { file_data: url, filename: fileName(block) } };
  }
  return { type: 'text', text: unsupportedDataText(block) };
}

function assistantMessage(
  blocks: Extract<ProviderTurn, { role: 'assistant' }>['content'],
  replayReasoning: boolean,
): ChatCompletionAssistantMessageParam | undefined {
  let text = '';
  let reasoning: { field: 'reasoning_content' | 'reasoning'; text: string } | undefined;
  const toolCalls: NonNullable<ChatCompletionAssistantMessageParam['tool_calls']> = [];
  for (const block of blocks) {
    if (block.type === 'text') text += block.text;
    else if (block.type === 'tool_call')
      toolCalls.push({
        id: block.id,
        type: 'function',
        function: { name: block.name, arguments: block.input || '{}' },
      });
    else if (block.type === 'thinking') {
      const field = readOpenaiData(block.providerData).field;
      if (field && block.thinking) reasoning = { field, text: (reasoning?.text ?? '') + block.thinking };
    }
  }
  if (!text && toolCalls.length === 0) return undefined;
  const msg: ChatCompletionAssistantMessageParam = { role: 'assistant', content: text || null };
  if (toolCalls.length) msg.tool_calls = toolCalls;
  if (reasoning && replayReasoning && toolCalls.length) {
    // Not in the OpenAI types: the field OpenAI-compatible reasoning servers read back.
    (msg as unknown as Record<string, unknown>)[reasoning.field] = reasoning.text;
  }
  return msg;
}

function toolMessages(results: ToolResultBlock[]): ChatCompletionMessageParam[] {
  const out: ChatCompletionMessageParam[] = [];
  const attachments: ChatCompletionContentPart[] = [];
  for (const result of results) {
    const text = result.output
      .filter((b): b is TextBlock => b.type === 'text')
      .map((b) => b.text)
      .join('\n');
    const data = result.output.filter((b): b is DataBlock => b.type === 'data');
    out.push({
      role: 'tool',
      tool_call_id: result.id,
      content: data.length && !text ? `(${data.length} attachment(s) follow)` : text,
    });
    if (data.length) {
      attachments.push({
        type: 'text',
        text: `Attachments returned by the tool call ${result.id} (${result.name}):`,
      });
      attachments.push(...data.map(dataPart));
    }
  }
  // Tool messages carry text only; data goes in a user message right after them.
  if (attachments.length) out.push({ role: 'user', content: attachments });
  return out;
}

/** Maps tool schemas onto Chat function tools. */
export function toChatTools(tools: ModelRequest['tools']): ChatCompletionTool[] {
  return tools.map((t) => ({
    type: 'function',
    function: {
      name: t.name,
      description: t.description,
      parameters: t.inputSchema as Record<string, unknown>,
    },
  }));
}

/** Maps a tool choice onto Chat's `tool_choice`. */
export function toChatToolChoice(choice: ToolChoice): ChatCompletionToolChoiceOption {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}
