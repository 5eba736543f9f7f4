import type { Content, Part } from '@google/genai';
import type {
  DataBlock,
  Msg,
  ProviderData,
  TextBlock,
  ThinkingBlock,
  ToolCallBlock,
  ToolResultBlock,
} from '@agentkit/core';
import { toProviderTurns } from '@agentkit/core/model';

/** `providerData` key holding a Gemini part's thought signature. */
export const THOUGHT_SIGNATURE_KEY = 'thoughtSignature';
/** `providerData` key set on tool calls whose id the adapter made up (Gemini sent none). */
export const SYNTHETIC_ID_KEY = 'googleSyntheticId';

/**
 * The signature Google documents for function calls that Gemini did not produce (a conversation
 * started with another model, or scripted history): Gemini 3 rejects a tool-calling turn whose first
 * function call carries no signature at all, and accepts this value instead.
 */
export const SKIP_THOUGHT_SIGNATURE = 'skip_thought_signature_validator';

/** Options of {@link toGeminiContents}. */
export interface ToGeminiContentsOptions {
  /**
   * The agent the request is for (`ModelRequest.agentName`): other agents' messages go as attributed `user`
   * parts (`Bob: …`; Gemini contents have no speaker name), never as the model's own turn.
   */
  agentName?: string | undefined;
  /**
   * Give the first function call of a model turn {@link SKIP_THOUGHT_SIGNATURE} when no part of that
   * turn carries a signature (needed by Gemini 3 for history it did not produce).
   */
  fillMissingSignatures?: boolean | undefined;
}

function signatureOf(providerData: ProviderData | undefined): string | undefined {
  const value = providerData?.[THOUGHT_SIGNATURE_KEY];
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

function withSignature(part: Part, providerData: ProviderData | undefined): Part {
  const signature = signatureOf(providerData);
  if (signature !== undefined) part.thoughtSignature = signature;
  return part;
}

/** Gemini can fetch these URLs itself (`fileData`); other schemes are described in text. */
const fetchableUrl = /^(https?|gs):\/\//i;
const dataUrl = /^data:([^;,]*)(;[^,]*)?,(.*)$/s;

function dataPart(block: DataBlock): Part {
  const { source } = block;
  if (source.type === 'base64') return { inlineData: { mimeType: source.mediaType, data: source.data } };
  const inline = dataUrl.exec(source.url);
  if (inline) {
    const isBase64 = inline[2]?.split(';').includes('base64') ?? false;
    const payload = inline[3] ?? '';
    const data = isBase64 ? payload : Buffer.from(decodeURIComponent(payload), 'utf8').toString('base64');
    return { inlineData: { mimeType: inline[1] || source.mediaType, data } };
  }
  if (fetchableUrl.test(source.url)) {
    return {
      fileData: {
        fileUri: source.url,
        mimeType: source.mediaType,
        ...(block.name ? { displayName: block.name } : {}),
      },
    };
  }
  const named = block.name ? ` named '${block.name}'` : '';
  return {
    text: `<system-reminder>An attached file${named} (${source.mediaType}) is saved at ${source.url}; it cannot be shown to you directly.</system-reminder>`,
  };
}

function userParts(content: Array<TextBlock | DataBlock>): Part[] {
  const parts: Part[] = [];
  for (const block of content) {
    if (block.type === 'text') {
      if (block.text.length > 0) parts.push({ text: block.text });
    } else parts.push(dataPart(block));
  }
  return parts;
}

/** Parses a tool call's raw JSON input into Gemini's `args` object (`{}` when it is not a JSON object). */
function parseArgs(input: string): Record<string, unknown> {
  if (input.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(input);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

function modelParts(
  content: Array<TextBlock | ThinkingBlock | DataBlock | ToolCallBlock>,
  options: ToGeminiContentsOptions,
): Part[] {
  const parts: Part[] = [];
  let firstCall: Part | undefined;
  for (const block of content) {
    switch (block.type) {
      case 'text':
        if (block.text.length > 0 || signatureOf(block.providerData))
          parts.push(withSignature({ text: block.text }, block.providerData));
        break;
      case 'thinking':
        if (block.thinking.length > 0 || signatureOf(block.providerData))
          parts.push(withSignature({ text: block.thinking, thought: true }, block.providerData));
        break;
      case 'data':
        // Generated images carry a thought signature that multi-turn editing needs back.
        parts.push(withSignature(dataPart(block), block.providerData));
        break;
      case 'tool_call': {
        const synthetic = block.providerData?.[SYNTHETIC_ID_KEY] === true;
        const part = withSignature(
          {
            functionCall: {
              name: block.name,
              args: parseArgs(block.input),
              ...(synthetic ? {} : { id: block.id }),
            },
          },
          block.providerData,
        );
        firstCall ??= part;
        parts.push(part);
        break;
      }
    }
  }
  if (options.fillMissingSignatures && firstCall && !parts.some((p) => p.thoughtSignature !== undefined))
    firstCall.thoughtSignature = SKIP_THOUGHT_SIGNATURE;
  return parts;
}

function resultText(result: ToolResultBlock): string {
  return result.output
    .filter((b): b is TextBlock => b.type === 'text')
    .map((b) => b.text)
    .join('\n');
}

function toolParts(
  results: ToolResultBlock[],
  calls: Map<string, ToolCallBlock>,
  callOrder: readonly string[],
): Part[] {
  const responses: Part[] = [];
  const attachments: Part[] = [];
  // Results arrive in completion order (a confirmed call can finish after a later one); Gemini pairs
  // responses without ids with their calls by position, so they go back in call order.
  const position = (id: string) => {
    const index = callOrder.indexOf(id);
    return index < 0 ? callOrder.length : index;
  };
  const sorted = [...results].sort((a, b) => position(a.id) - position(b.id));
  for (const result of sorted) {
    const call = calls.get(result.id);
    const synthetic = call?.providerData?.[SYNTHETIC_ID_KEY] === true;
    const text = resultText(result);
    responses.push({
      functionResponse: {
        name: call?.name ?? result.name,
        ...(synthetic || !call ? {} : { id: result.id }),
        response:
          result.state === 'success' || result.state === 'running'
            ? { output: text }
            : { error: text || result.state },
      },
    });
    for (const block of result.output) if (block.type === 'data') attachments.push(dataPart(block));
  }
  // Data the tools returned follows the function responses in the same user turn.
  return [...responses, ...attachments];
}

/**
 * Maps agentkit messages onto Gemini `contents`, through core's `toProviderTurns`:
 * user turns become `user` contents (text, `inlineData` for base64 data and `data:` URLs, `fileData` for
 * http(s)/gs URLs); assistant turns become `model` contents (text, `thought` parts, `functionCall`), each
 * part with the thought signature kept in the block's `providerData`; tool turns become `user` contents of
 * `functionResponse` parts matched to their call by name and id (made-up ids are not sent). Adjacent
 * contents of the same role are merged, since Gemini expects turns to alternate.
 */
export function toGeminiContents(messages: readonly Msg[], options: ToGeminiContentsOptions = {}): Content[] {
  const contents: Content[] = [];
  const calls = new Map<string, ToolCallBlock>();
  let callOrder: string[] = [];
  const push = (role: 'user' | 'model', parts: Part[]) => {
    if (parts.length === 0) return;
    const last = contents[contents.length - 1];
    if (last?.role === role) last.parts!.push(...parts);
    else contents.push({ role, parts });
  };
  for (const turn of toProviderTurns(messages, { agentName: options.agentName })) {
    if (turn.role === 'user') push('user', userParts(turn.content));
    else if (turn.role === 'assistant') {
      callOrder = [];
      for (const block of turn.content)
        if (block.type === 'tool_call') {
          calls.set(block.id, block);
          callOrder.push(block.id);
        }
      push('model', modelParts(turn.content, options));
    } else push('user', toolParts(turn.results, calls, callOrder));
  }
  return contents;
}
