import type { ContentBlock, DataBlock, Msg, TextBlock, ToolCallBlock, ToolResultBlock } from '@agentkit/core';
import { h } from './dom';

const CALL_STATE: Record<ToolCallBlock['state'], string> = {
  pending: 'requested',
  asking: 'waiting for your confirmation',
  allowed: 'running',
  submitted: 'waiting for an external result',
  finished: 'done',
};

const ENDINGS: Record<string, string> = {
  interrupted: 'Interrupted.',
  exceed_max_iters: 'Stopped: the reply reached its iteration limit.',
};

/**
 * A message as a list item: its text and thinking, hints, and each tool call as a card with its result.
 * Every string from the model goes into text nodes. `previous` is the element it replaces, whose opened
 * `<details>` stay open.
 */
export function renderMessage(msg: Msg, previous?: Element | null): HTMLLIElement {
  const open = new Set(
    [...(previous?.querySelectorAll('details[open]') ?? [])].map((d) => d.getAttribute('data-block-id')),
  );
  const results = new Map<string, ToolResultBlock>();
  const calls = new Set<string>();
  for (const block of msg.content) {
    if (block.type === 'tool_result') results.set(block.id, block);
    if (block.type === 'tool_call') calls.add(block.id);
  }
  const blocks = msg.content
    .filter((b) => b.type !== 'tool_result' || !calls.has(b.id))
    .map((b) => renderBlock(b, results, open));
  const item = h(
    'li',
    {
      class: `message ${msg.role}`,
      'data-message-id': msg.id,
      'data-role': msg.role,
      'data-finished-reason': msg.role === 'assistant' ? (msg.finishedReason ?? 'none') : undefined,
    },
    h('p', { class: 'speaker' }, msg.role === 'user' ? 'You' : msg.name || 'Agent'),
    ...blocks,
  );
  if (msg.role === 'assistant') item.append(ending(msg));
  return item;
}

function renderBlock(block: ContentBlock, results: Map<string, ToolResultBlock>, open: Set<string | null>) {
  switch (block.type) {
    case 'text':
      return h('p', { class: 'text', 'data-block': 'text' }, block.text);
    case 'thinking':
      return details(block.id, 'thinking', 'Thinking', block.thinking, open);
    case 'hint':
      return details(block.id, 'hint', hintTitle(block.source), outputText(block.hint), open);
    case 'data':
      return h('p', { class: 'data' }, dataLabel(block));
    case 'tool_call':
      return toolCard(block, results.get(block.id));
    case 'tool_result':
      return toolCard(undefined, block);
  }
}

function details(id: string, kind: string, summary: string, text: string, open: Set<string | null>) {
  return h(
    'details',
    { class: kind, 'data-block-id': id, ...(open.has(id) ? { open: '' } : {}) },
    h('summary', {}, summary),
    h('pre', {}, text),
  );
}

/** `Hint`, with where it comes from: a plain source, or the labels of a JSON one (`{"label": …}`). */
function hintTitle(source: string | null): string {
  if (!source) return 'Hint';
  let labels = [source];
  try {
    const parsed = JSON.parse(source) as Record<string, unknown>;
    labels = [parsed.label, parsed.sublabel].filter((l): l is string => typeof l === 'string');
  } catch {
    // A plain name.
  }
  return labels.length > 0 ? `Hint: ${labels.join(' · ')}` : 'Hint';
}

function toolCard(call: ToolCallBlock | undefined, result: ToolResultBlock | undefined): HTMLElement {
  const name = call?.name ?? result?.name ?? 'tool';
  const id = call?.id ?? result?.id ?? '';
  return h(
    'article',
    {
      class: 'tool-card',
      'data-tool-call-id': id,
      'data-tool-name': name,
      'data-call-state': call?.state,
      'aria-label': `Tool call: ${name}`,
    },
    h(
      'p',
      { class: 'tool-head' },
      h('strong', {}, name),
      ' ',
      h('span', { class: 'badge' }, call ? CALL_STATE[call.state] : 'result'),
    ),
    call ? h('pre', { class: 'tool-input' }, prettyJson(call.input)) : null,
    call?.state === 'asking'
      ? h('button', { type: 'button', 'data-action': 'review', 'data-call-id': id }, 'Review…')
      : null,
    result
      ? h(
          'section',
          { class: 'tool-result', 'data-result-state': result.state },
          h('p', { class: 'result-head' }, `Result: ${result.state}`),
          h('pre', {}, outputText(result.output)),
        )
      : null,
  );
}

function ending(msg: Msg): HTMLElement {
  const asking = msg.content.some((b) => b.type === 'tool_call' && b.state === 'asking');
  const text =
    msg.finishedReason === 'completed'
      ? ''
      : msg.finishedReason === 'error'
        ? `Error: ${msg.error?.message ?? 'the reply failed.'}`
        : msg.finishedReason
          ? (ENDINGS[msg.finishedReason] ?? msg.finishedReason)
          : asking
            ? 'Waiting for your confirmation.'
            : 'Replying…';
  return h('p', { class: 'ending' }, text);
}

/** A tool input, indented when it is JSON. */
export function prettyJson(input: string): string {
  try {
    return JSON.stringify(JSON.parse(input), null, 2);
  } catch {
    return input;
  }
}

function outputText(output: string | Array<TextBlock | DataBlock>): string {
  if (typeof output === 'string') return output;
  return output.map((b) => (b.type === 'text' ? b.text : dataLabel(b))).join('');
}

function dataLabel(block: DataBlock): string {
  return `[${block.source.mediaType}${block.name ? ` ${block.name}` : ''}]`;
}
