import type { HintBlock, JSONSchema, ModelChunk, ModelRequest, Msg, ToolSchema, Usage } from '@agentkit/core';
import { createMsg } from '@agentkit/core';
import { normalizeUsage } from '@agentkit/core/model';
import { SUMMARY_TOOL_NAME } from './defaults';

/** What {@link requestSummary} sends. */
export interface SummaryRequest {
  /**
   * Streams the call: inside a reply the plugin context's `streamModel` (the agent's retries and fallback
   * model), else the model's own `stream`.
   */
  stream: (request: ModelRequest) => AsyncIterable<ModelChunk>;
  systemPrompt: string;
  /** The previous summary as a user message, so the new summary replaces it. */
  summaryMsg: Msg | null;
  /** The messages to summarise. */
  messages: readonly Msg[];
  /** Extra guidance, sent as a hint of an assistant message, for this call only. */
  instructions: HintBlock | null;
  agentName: string;
  compressionPrompt: string;
  summarySchema: JSONSchema;
  signal: AbortSignal;
}

/** The structured summary the model produced, and the call's usage. */
export interface SummaryResponse {
  fields: Record<string, unknown>;
  usage: Usage | null;
}

/** The tool the summary call forces: its input schema is the summary schema. */
export function summaryTool(summarySchema: JSONSchema): ToolSchema {
  return {
    name: SUMMARY_TOOL_NAME,
    description: 'Write the continuation summary of the conversation above.',
    inputSchema: summarySchema,
  };
}

/**
 * The messages of the summary call: the previous summary, the messages to compress, the instructions (as an
 * assistant hint) and the compression prompt (as the last user message).
 */
export function summaryMessages(req: Omit<SummaryRequest, 'stream' | 'signal' | 'summarySchema'>): Msg[] {
  const out: Msg[] = [];
  if (req.summaryMsg) out.push(req.summaryMsg);
  out.push(...req.messages);
  if (req.instructions)
    out.push(createMsg({ role: 'assistant', name: req.agentName, content: [req.instructions] }));
  const prompt = req.compressionPrompt.replaceAll('{current_time}', new Date().toISOString());
  out.push(createMsg({ role: 'user', name: 'user', content: prompt }));
  return out;
}

/**
 * Asks the model for a structured summary: one streamed call whose only tool is the summary schema, forced
 * by `toolChoice`. Throws when the call fails or its arguments are not a JSON object with the schema's
 * required fields.
 */
export async function requestSummary(req: SummaryRequest): Promise<SummaryResponse> {
  const calls = new Map<string, { name: string | undefined; args: string }>();
  let text = '';
  let usage: Usage | null = null;
  for await (const chunk of req.stream({
    systemPrompt: req.systemPrompt,
    messages: summaryMessages(req),
    tools: [summaryTool(req.summarySchema)],
    toolChoice: { name: SUMMARY_TOOL_NAME },
    signal: req.signal,
  })) {
    if (chunk.type === 'tool_call') {
      const call = calls.get(chunk.id) ?? { name: undefined, args: '' };
      call.name ??= chunk.name;
      call.args += chunk.delta;
      calls.set(chunk.id, call);
    } else if (chunk.type === 'text') text += chunk.delta;
    // A provider's counters as they came (a manual compression reads the model directly): counts only.
    else if (chunk.type === 'usage') usage = normalizeUsage(chunk.usage);
  }
  const all = [...calls.values()];
  const call = all.find((c) => c.name === SUMMARY_TOOL_NAME) ?? all[0];
  // Some providers ignore a forced tool and answer with the JSON as text.
  const raw = call ? call.args : text.trim();
  if (!raw) throw new Error('The model returned no summary (no tool call and no text).');
  let fields: unknown;
  try {
    fields = JSON.parse(raw);
  } catch (error) {
    throw new Error(`The model's summary is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields))
    throw new Error('The model returned a summary that is not a JSON object.');
  const required = Array.isArray(req.summarySchema.required) ? (req.summarySchema.required as unknown[]) : [];
  const missing = required.filter((k) => typeof k === 'string' && !Object.hasOwn(fields as object, k));
  if (missing.length)
    throw new Error(`The model's summary lacks the required field(s) ${missing.join(', ')}.`);
  return { fields: fields as Record<string, unknown>, usage };
}
