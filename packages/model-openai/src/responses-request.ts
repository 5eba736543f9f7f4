import type { DataBlock, ModelRequest, TextBlock, ToolChoice } from '@agentkit/core';
import { type ProviderTurn, toProviderTurns } from '@agentkit/core/model';
import type {
  FunctionTool,
  ResponseCreateParamsStreaming,
  ResponseFunctionCallOutputItemList,
  ResponseInputContent,
  ResponseInputItem,
} from 'openai/resources/responses/responses';
import { fileName, sendableUrl, unsupportedDataText } from './media';
import { readOpenaiData } from './provider-data';

/** How Responses input items are built. */
export interface ResponsesInputOptions {
  /**
   * The agent the request is for (`ModelRequest.agentName`): other agents' messages go as attributed user
   * messages (Responses input messages have no speaker name).
   */
  agentName?: string | undefined;
  /**
   * Whether the provider stores responses (`store`). When it does not (the default here), earlier
   * items are sent in full without their ids, and reasoning goes back only as encrypted content.
   */
  store: boolean;
}

/**
 * Builds the Responses `input` items of a request: user turns as messages, assistant text as
 * assistant messages, tool calls as `function_call` items, results as `function_call_output` items,
 * and earlier reasoning as `reasoning` items when this adapter kept them (encrypted content, or an id
 * the provider stored).
 */
export function toResponsesInput(
  messages: ModelRequest['messages'],
  options: ResponsesInputOptions,
): ResponseInputItem[] {
  const out: ResponseInputItem[] = [];
  for (const turn of toProviderTurns(messages, { agentName: options.agentName })) {
    if (turn.role === 'user') out.push({ role: 'user', content: inputContent(turn.content) });
    else if (turn.role === 'tool') {
      for (const result of turn.results) {
        const content = inputContent(result.output);
        const output: string | ResponseFunctionCallOutputItemList =
          typeof content === 'string' ? content : (content as ResponseFunctionCallOutputItemList);
        out.push({ type: 'function_call_output', call_id: result.id, output });
      }
    } else out.push(...assistantItems(turn.content, options));
  }
  return out;
}

function inputContent(blocks: Array<TextBlock | DataBlock>): string | ResponseInputContent[] {
  if (blocks.every((b) => b.type === 'text')) return blocks.map((b) => (b as TextBlock).text).join('\n');
  return blocks.map((b) => (b.type === 'text' ? { type: 'input_text', text: b.text } : dataContent(b)));
}

/** Maps a data block onto a Responses input part: images, files (PDF…); anything else as a note. */
export function dataContent(block: DataBlock): ResponseInputContent {
  const { mediaType } = block.source;
  const url = sendableUrl(block);
  if (mediaType.startsWith('image/') && url) return { type: 'input_image', image_url: url, detail: 'auto' };
  if (url && !mediaType.startsWith('audio/') && !mediaType.startsWith('video/')) {
    return block.source.type === 'base64'
      ? { type: 'input_file', file_data: url, filename: fileName(block) }
      : { type: 'input_file', file_url: url };
  }
  return { type: 'input_text', text: unsupportedDataText(block) };
}

function assistantItems(
  blocks: Extract<ProviderTurn, { role: 'assistant' }>['content'],
  { store }: ResponsesInputOptions,
): ResponseInputItem[] {
  const out: ResponseInputItem[] = [];
  let text: { text: string; itemId: string | undefined } | undefined;
  const flushText = () => {
    if (!text?.text) return;
    out.push(
      store && text.itemId
        ? {
            type: 'message',
            role: 'assistant',
            id: text.itemId,
            status: 'completed',
            content: [{ type: 'output_text', text: text.text, annotations: [] }],
          }
        : { role: 'assistant', content: text.text },
    );
    text = undefined;
  };
  for (const block of blocks) {
    if (block.type === 'text') {
      const itemId = readOpenaiData(block.providerData).itemId;
      // Text of another output message is another message item.
      if (text?.itemId && itemId && itemId !== text.itemId) flushText();
      text ??= { text: '', itemId };
      text.text += block.text;
      continue;
    }
    flushText();
    if (block.type === 'tool_call') {
      const itemId = readOpenaiData(block.providerData).itemId;
      out.push({
        type: 'function_call',
        call_id: block.id,
        name: block.name,
        arguments: block.input || '{}',
        ...(store && itemId ? { id: itemId } : {}),
      });
    } else if (block.type === 'thinking') {
      const item = readOpenaiData(block.providerData).reasoningItem;
      if (!item || (!store && !item.encryptedContent)) continue;
      // Without `store`, ids point at nothing on the provider side: the item is sent by content.
      const reasoning = {
        type: 'reasoning' as const,
        summary: item.summary,
        ...(item.encryptedContent ? { encrypted_content: item.encryptedContent } : {}),
        ...(store ? { id: item.id } : {}),
      };
      out.push(reasoning as ResponseInputItem);
    }
  }
  flushText();
  return out;
}

/** Maps tool schemas onto Responses function tools. */
export function toResponsesTools(tools: ModelRequest['tools']): FunctionTool[] {
  return tools.map((t) => ({
    type: 'function',
    name: t.name,
    description: t.description,
    parameters: t.inputSchema as Record<string, unknown>,
    strict: false,
  }));
}

/** Maps a tool choice onto Responses' `tool_choice`. */
export function toResponsesToolChoice(
  choice: ToolChoice,
): NonNullable<ResponseCreateParamsStreaming['tool_choice']> {
  return typeof choice === 'string' ? choice : { type: 'function', name: choice.name };
}
