import {
  estimateTextTokens,
  getBlocks,
  newId,
  type Msg,
  type ModelChunk,
  type ModelRequest,
  type ToolResultBlock,
} from '@agentkit/core';
import { ScriptedModel, textChunks, toolCallChunk, usageChunk } from '@agentkit/core/testing';

const resultText = (result: ToolResultBlock | undefined): string =>
  (result?.output ?? []).map((b) => (b.type === 'text' ? b.text : '')).join('');

/** A fresh call id (a resumed process must not reuse the ids of the first). */
const callId = (): string => `call_${newId()}`;

/** The bullet points of a markdown text, shortened to their first clause. */
export function summarizeNotes(notes: string): string[] {
  return notes
    .split('\n')
    .filter((line) => /^\s*[-*]\s+/.test(line))
    .map((line) =>
      line
        .replace(/^\s*[-*]\s+/, '')
        .split(/[:;]/)[0]!
        .replace(/\.$/, '')
        .trim(),
    )
    .filter((line) => line !== '');
}

/** The next response of the demo's script, decided from what the current reply has done so far. */
function nextResponse(request: ModelRequest): ModelChunk[] {
  const reply: Msg | undefined = request.messages.findLast((m) => m.role === 'assistant');
  const results = new Map<string, ToolResultBlock[]>();
  for (const r of reply ? getBlocks(reply, 'tool_result') : [])
    results.set(r.name, [...(results.get(r.name) ?? []), r]);
  const last = (name: string) => results.get(name)?.at(-1);

  if (!last('list_files'))
    return [
      ...textChunks("I'll track this as a task, then look at what is in the sandbox."),
      toolCallChunk(
        'TaskCreate',
        { subject: 'Summarise the notes', description: 'Read notes.md and save a summary to summary.md.' },
        callId(),
      ),
      toolCallChunk('list_files', { path: '.' }, callId()),
    ];
  if (!last('read_file'))
    return [
      ...textChunks('There is a notes.md; reading it.'),
      toolCallChunk('TaskUpdate', { task_id: '1', status: 'in_progress' }, callId()),
      toolCallChunk('read_file', { path: 'notes.md' }, callId()),
    ];
  const bullets = summarizeNotes(resultText(last('read_file')));
  const summary = `# Summary of notes.md\n\n${bullets.map((b) => `- ${b}`).join('\n')}\n`;
  const write = last('write_file');
  if (!write)
    return [
      ...textChunks(
        `The notes have ${bullets.length} points. I'll save a one-line-per-point summary to summary.md.`,
      ),
      toolCallChunk('write_file', { path: 'summary.md', content: summary }, callId()),
    ];
  if (write.state === 'denied' || write.state === 'error')
    return textChunks(`Understood: I did not write summary.md. Here is the summary instead:\n\n${summary}`);
  if ((results.get('TaskUpdate')?.length ?? 0) < 2)
    return [toolCallChunk('TaskUpdate', { task_id: '1', status: 'completed' }, callId())];
  return textChunks(
    `Done. summary.md now holds ${bullets.length} points:\n${bullets.map((b) => `• ${b}`).join('\n')}\n` +
      'The most urgent one: the release moved to Thursday.',
  );
}

/** A rough token estimate for the scripted model's usage chunks (so the transcript shows usage). */
function estimateUsage(request: ModelRequest, chunks: ModelChunk[]): ModelChunk {
  const input = estimateTextTokens(
    request.systemPrompt + JSON.stringify(request.messages) + JSON.stringify(request.tools),
  );
  const output = estimateTextTokens(chunks.map((c) => ('delta' in c ? c.delta : '')).join(''));
  return usageChunk({ inputTokens: input, outputTokens: output });
}

/**
 * The model the demo uses without an API key: a `ScriptedModel` whose responses depend on what the reply
 * has done so far (not on a call counter), so a second process that resumes the saved session picks up
 * the script where the first stopped. It plans with the task tools, lists and reads the sandbox, asks to
 * write `summary.md` (the confirmation), and answers from what it read.
 */
export function scriptedDemoModel(options: { delayMs?: number } = {}): ScriptedModel {
  return new ScriptedModel(
    [
      (request) => {
        const chunks = nextResponse(request);
        return { chunks: [...chunks, estimateUsage(request, chunks)], delayMs: options.delayMs ?? 0 };
      },
    ],
    { name: 'scripted-model', onExhausted: 'repeat' },
  );
}
