import { type ModelChunk, ModelError, type Usage, newId } from '@agentkit/core';
import { genericMessage, redactSecrets } from '@agentkit/core/model';
import type { ResponseStreamEvent } from 'openai/resources/responses/responses';
import { throwIfWithheld } from './chat-stream';
import { openaiData } from './provider-data';
import { cut, typeFromErrorCode } from './to-model-error';
import { responsesUsage } from './usage';

/**
 * Turns a Responses event stream into model chunks: output text → text; reasoning summaries (and
 * reasoning text from servers that send it) → thinking, with the finished reasoning item (id,
 * summary, encrypted content) kept in the thinking block's `providerData`; function calls → tool-call
 * chunks keyed by `call_id`; the final usage → one `usage` chunk. `response.failed` and `error`
 * events throw a classified {@link ModelError}; a stream without a final event throws `connection`, one
 * without content that the content filter or the token limit ended `invalid_request`.
 */
export async function* responsesChunks(
  stream: AsyncIterable<ResponseStreamEvent>,
  context: { apiKey?: string | undefined } = {},
): AsyncGenerator<ModelChunk> {
  const end: StreamEnd = { finished: false };
  let produced = false;
  for await (const chunk of outputChunks(stream, context, end)) {
    produced = true;
    yield chunk;
  }
  if (!end.finished)
    throw new ModelError('connection', 'The model stream ended before the response was complete.');
  if (!produced) throwIfWithheld(end.incomplete === 'content_filter', end.incomplete === 'max_output_tokens');
  if (end.usage) yield { type: 'usage', usage: end.usage };
}

/** What the final event of a Responses stream said. */
interface StreamEnd {
  finished: boolean;
  /** `incomplete_details.reason` of an incomplete response. */
  incomplete?: string | undefined;
  usage?: Usage | undefined;
}

/** The content chunks of a Responses stream; the final event's outcome goes into `end`. */
async function* outputChunks(
  stream: AsyncIterable<ResponseStreamEvent>,
  context: { apiKey?: string | undefined },
  end: StreamEnd,
): AsyncGenerator<ModelChunk> {
  const calls = new Map<string, { callId: string; emitted: string }>();
  // Chunks are keyed by call id: two calls a server gives one `call_id` would merge into one.
  const usedCallIds = new Set<string>();
  const uniqueCallId = (given: unknown): string => {
    const base = typeof given === 'string' && given ? given : `call_${newId()}`;
    let id = base;
    for (let n = 2; usedCallIds.has(id); n++) id = `${base}_${n}`;
    usedCallIds.add(id);
    return id;
  };
  const textItems = new Set<string>();
  const summaryParts = new Map<string, number>();
  // The reasoning item the open thinking block belongs to: another item starts another block.
  let reasoningItem: string | undefined;
  const newReasoning = (itemId: string): { newBlock?: true | undefined } => {
    if (itemId === reasoningItem) return {};
    reasoningItem = itemId;
    return { newBlock: true };
  };
  for await (const event of stream) {
    switch (event.type) {
      case 'response.output_item.added': {
        const item = event.item;
        if (item.type === 'function_call') {
          const itemId = item.id ?? item.call_id;
          const callId = uniqueCallId(item.call_id);
          calls.set(itemId, { callId, emitted: item.arguments ?? '' });
          yield {
            type: 'tool_call',
            id: callId,
            name: item.name,
            delta: item.arguments ?? '',
            ...(item.id ? { providerData: openaiData({ itemId: item.id }) } : {}),
          };
        }
        break;
      }
      case 'response.function_call_arguments.delta': {
        const call = calls.get(event.item_id);
        if (!call || !event.delta) break;
        call.emitted += event.delta;
        yield { type: 'tool_call', id: call.callId, delta: event.delta };
        break;
      }
      case 'response.output_text.delta':
      case 'response.refusal.delta': {
        if (!event.delta) break;
        if (textItems.has(event.item_id)) yield { type: 'text', delta: event.delta };
        else {
          // Another output message is another text block (it keeps its own item id).
          textItems.add(event.item_id);
          yield {
            type: 'text',
            delta: event.delta,
            providerData: openaiData({ itemId: event.item_id }),
            ...(textItems.size > 1 ? { newBlock: true } : {}),
          };
        }
        break;
      }
      case 'response.reasoning_summary_text.delta': {
        if (!event.delta) break;
        const seen = summaryParts.get(event.item_id);
        summaryParts.set(event.item_id, event.summary_index);
        const separator = seen !== undefined && seen !== event.summary_index ? '\n\n' : '';
        yield { type: 'thinking', delta: separator + event.delta, ...newReasoning(event.item_id) };
        break;
      }
      case 'response.reasoning_text.delta': {
        if (event.delta) yield { type: 'thinking', delta: event.delta, ...newReasoning(event.item_id) };
        break;
      }
      case 'response.output_item.done': {
        const item = event.item;
        if (item.type === 'reasoning') {
          yield {
            type: 'thinking',
            delta: '',
            ...newReasoning(item.id),
            providerData: openaiData({
              reasoningItem: {
                id: item.id,
                summary: item.summary.map((s) => ({ type: 'summary_text', text: s.text })),
                encryptedContent: item.encrypted_content ?? null,
              },
            }),
          };
        } else if (item.type === 'function_call') {
          const call = calls.get(item.id ?? item.call_id);
          if (!call) {
            // No `added` event was seen (some compatible servers): the whole call at once.
            yield {
              type: 'tool_call',
              id: uniqueCallId(item.call_id),
              name: item.name,
              delta: item.arguments,
            };
          } else if (item.arguments.length > call.emitted.length && item.arguments.startsWith(call.emitted)) {
            yield { type: 'tool_call', id: call.callId, delta: item.arguments.slice(call.emitted.length) };
            call.emitted = item.arguments;
          }
        }
        break;
      }
      case 'response.completed':
      case 'response.incomplete': {
        if (event.response.usage) end.usage = responsesUsage(event.response.usage);
        const reason = event.response.incomplete_details?.reason;
        if (reason) end.incomplete = reason;
        end.finished = true;
        break;
      }
      case 'response.failed': {
        const error = event.response.error;
        throw streamError(error?.code, undefined, error?.message, context.apiKey);
      }
      case 'error':
        throw streamError(event.code, undefined, event.message, context.apiKey);
      default:
        break;
    }
  }
}

function streamError(
  code: string | null | undefined,
  type: string | undefined,
  message: string | null | undefined,
  apiKey?: string,
): ModelError {
  const errorType = typeFromErrorCode(code, type);
  const detail =
    errorType === 'authentication'
      ? ''
      : [
          typeof code === 'string' && code ? `[${cut(code)}]` : '',
          typeof message === 'string' && message ? cut(redactSecrets(message, [apiKey])) : '',
        ]
          .filter(Boolean)
          .join(' ');
  return new ModelError(
    errorType,
    detail ? `${genericMessage(errorType)} ${detail}` : genericMessage(errorType),
  );
}
