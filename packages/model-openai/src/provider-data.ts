import type { ProviderData } from '@agentkit/core';

/**
 * What this adapter keeps in a block's `providerData`, under the `openai` key so other adapters'
 * data never collides with it.
 * - thinking from Chat Completions: `field`, the delta field it came in (`reasoning_content` or
 *   `reasoning`), so it can be sent back the same way;
 * - thinking from Responses: `reasoningItem`, the reasoning item (id, summary, encrypted content);
 * - text and tool calls from Responses: `itemId`, the output item's id.
 */
export interface OpenAIProviderData {
  field?: 'reasoning_content' | 'reasoning' | undefined;
  itemId?: string | undefined;
  reasoningItem?:
    | {
        id: string;
        summary: Array<{ type: 'summary_text'; text: string }>;
        encryptedContent: string | null;
      }
    | undefined;
}

/** Wraps adapter data under the `openai` key. */
export function openaiData(data: OpenAIProviderData): ProviderData {
  return { openai: JSON.parse(JSON.stringify(data)) };
}

/** Reads this adapter's data from a block's `providerData` (anything malformed reads as nothing). */
export function readOpenaiData(providerData: ProviderData | undefined): OpenAIProviderData {
  const raw = providerData?.openai;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return {};
  const out: OpenAIProviderData = {};
  if (raw.field === 'reasoning_content' || raw.field === 'reasoning') out.field = raw.field;
  if (typeof raw.itemId === 'string') out.itemId = raw.itemId;
  const item = raw.reasoningItem;
  if (typeof item === 'object' && item !== null && !Array.isArray(item) && typeof item.id === 'string') {
    const summary = Array.isArray(item.summary)
      ? item.summary.flatMap((s) =>
          typeof s === 'object' && s !== null && !Array.isArray(s) && typeof s.text === 'string'
            ? [{ type: 'summary_text' as const, text: s.text }]
            : [],
        )
      : [];
    out.reasoningItem = {
      id: item.id,
      summary,
      encryptedContent: typeof item.encryptedContent === 'string' ? item.encryptedContent : null,
    };
  }
  return out;
}
