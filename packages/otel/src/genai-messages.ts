import type {
  ContentBlock,
  DataBlock,
  Msg,
  ReplyFinishedReason,
  TextBlock,
  ToolResultBlock,
  ToolSchema,
} from '@agentkit/core';
import { toProviderTurns } from '@agentkit/core/model';

// The JSON shapes of the conventions' content attributes (v1.41.1 `gen-ai-input-messages.json`,
// `gen-ai-output-messages.json`, `gen-ai-system-instructions.json`, `gen-ai-tool-definitions.json`).

/** A message part: `text`, `reasoning`, `blob`, `uri`, `tool_call` or `tool_call_response`. */
export type GenAiPart = { type: string } & Record<string, unknown>;

/** An input message (`gen_ai.input.messages`). */
export interface GenAiMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  parts: GenAiPart[];
}

/** An output message (`gen_ai.output.messages`). */
export interface GenAiOutputMessage extends GenAiMessage {
  finish_reason: string;
}

/** Messages as the model saw them: split into provider turns, hints as user turns at their position. */
export function inputMessages(messages: readonly Msg[]): GenAiMessage[] {
  return toProviderTurns(messages).map((turn) =>
    turn.role === 'tool'
      ? { role: 'tool', parts: turn.results.map(toolResponsePart) }
      : { role: turn.role, parts: blockParts(turn.content) },
  );
}

/** One assistant output message of the given blocks (the calls' text, reasoning, data and tool calls). */
export function outputMessage(blocks: readonly ContentBlock[], finishReason: string): GenAiOutputMessage {
  return { role: 'assistant', parts: blockParts(blocks), finish_reason: finishReason };
}

/** The system prompt as instructions, or `undefined` when there is none. */
export function systemInstructions(systemPrompt: string): GenAiPart[] | undefined {
  return systemPrompt === '' ? undefined : [{ type: 'text', content: systemPrompt }];
}

/** Tool definitions with their required properties only (the conventions advise against more by default). */
export function toolDefinitions(tools: readonly ToolSchema[]): GenAiPart[] {
  return tools.map((tool) => ({ type: 'function', name: tool.name }));
}

/** How a reply's end reads as a finish reason of its output message. */
export function replyFinishReason(reason: ReplyFinishedReason): string {
  if (reason === 'completed') return 'stop';
  return reason;
}

/**
 * A tool's output as a value: the text parsed as JSON when it is JSON (the conventions expect an object
 * where one can be had), else the text; data parts make it a list of parts.
 */
export function toolOutputValue(output: ReadonlyArray<TextBlock | DataBlock>): unknown {
  if (output.every((b) => b.type === 'text')) return jsonOrText(output.map((b) => b.text).join(''));
  return blockParts(output);
}

/** A JSON string that must hold an object where it can: valid JSON is parsed, anything else kept as text. */
export function jsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function blockParts(blocks: readonly ContentBlock[]): GenAiPart[] {
  const parts: GenAiPart[] = [];
  for (const block of blocks) {
    switch (block.type) {
      case 'text':
        parts.push({ type: 'text', content: block.text });
        break;
      case 'thinking':
        // A redacted reasoning block has no text; what the provider keeps of it is not content.
        if (block.thinking !== '') parts.push({ type: 'reasoning', content: block.thinking });
        break;
      case 'data':
        parts.push(dataPart(block));
        break;
      case 'tool_call':
        parts.push({ type: 'tool_call', id: block.id, name: block.name, arguments: jsonOrText(block.input) });
        break;
      case 'tool_result':
        parts.push(toolResponsePart(block));
        break;
    }
  }
  return parts;
}

function toolResponsePart(result: ToolResultBlock): GenAiPart {
  return { type: 'tool_call_response', id: result.id, response: toolOutputValue(result.output) };
}

function dataPart(block: DataBlock): GenAiPart {
  const { source } = block;
  const modality = source.mediaType.split('/')[0] ?? source.mediaType;
  return source.type === 'base64'
    ? { type: 'blob', mime_type: source.mediaType, modality, content: source.data }
    : { type: 'uri', mime_type: source.mediaType, modality, uri: source.url };
}
