import { styleText } from 'node:util';
import type { AgentEvent, HintBlock, Msg, ToolCallBlock, ToolResultState, Usage } from '@agentkit/core';
import { terminalSafe } from './terminal-safe';

type Style = Parameters<typeof styleText>[0];

const RESULT_MARK: Record<ToolResultState, [string, Style]> = {
  success: ['✓', 'green'],
  error: ['✗', 'red'],
  denied: ['⊘', 'yellow'],
  interrupted: ['⏹', 'yellow'],
  running: ['…', 'gray'],
};

/**
 * One line of at most `max` characters, safe to print: whitespace collapsed, control characters escaped
 * ({@link terminalSafe}), the rest replaced by `…`.
 */
export function oneLine(text: string, max = 100): string {
  return cut(terminalSafe(text.replace(/\s+/g, ' ').trim()), max);
}

/** `text` cut to at most `max` characters, the rest replaced by `…`. */
function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A tool call's JSON arguments, compacted to one short line. */
export function compactArgs(input: string, max = 80): string {
  try {
    return oneLine(JSON.stringify(JSON.parse(input)), max);
  } catch {
    return oneLine(input, max);
  }
}

/**
 * A hint's text, shortened for the terminal: the single-line `<field>value</field>` lines of a runtime-state
 * reminder when there are any, else the whole text on one line.
 */
export function compactHint(hint: HintBlock['hint'], max = 110): string {
  const text =
    typeof hint === 'string' ? hint : hint.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join(' ');
  const fields = text.split('\n').filter((line) => /^\s*<([\w-]+)>.*<\/\1>\s*$/.test(line));
  return oneLine(fields.length > 0 ? fields.join(' ') : text, max);
}

/**
 * Prints an agent's event stream as a compact, readable transcript: streamed text as it arrives, one
 * line per tool call and per tool result, hints, pauses, and a closing line with the usage. Colours
 * follow the output stream (none when it is not a TTY, or with `NO_COLOR`). Everything a model, a tool
 * or a file controls (text, tool names, arguments, results, error messages) is printed with its control
 * characters escaped ({@link terminalSafe}), so it cannot move the cursor or hide part of a prompt.
 */
export class Transcript {
  private readonly out: NodeJS.WritableStream;
  private readonly calls = new Map<string, { name: string; args: string }>();
  private readonly results = new Map<string, string>();
  private inText = false;
  private modelCalls = 0;
  private readonly usage: Usage = {
    inputTokens: 0,
    outputTokens: 0,
    cacheInputTokens: 0,
    cacheCreationInputTokens: 0,
    reasoningTokens: 0,
  };

  constructor(out: NodeJS.WritableStream = process.stdout) {
    this.out = out;
  }

  /** Model calls seen so far. */
  get modelCallCount(): number {
    return this.modelCalls;
  }

  /** Usage summed over the model calls seen so far. */
  get totalUsage(): Usage {
    return { ...this.usage };
  }

  private style(format: Style, text: string): string {
    return styleText(format, text, { stream: this.out as NodeJS.WriteStream });
  }

  /** Prints a line (closing streamed text first). */
  line(text = ''): void {
    this.endText();
    this.out.write(`${text}\n`);
  }

  private endText(): void {
    if (this.inText) this.out.write('\n');
    this.inText = false;
  }

  /**
   * Prints one event, or the reply's message (`yieldFinalMsg`): for a finished reply, the usage summed
   * over all its model calls, including those of other processes before a resume.
   */
  write(event: AgentEvent | Msg): void {
    if (!('type' in event)) {
      if (event.finishedReason !== null && event.usage)
        this.line(
          this.style(
            'gray',
            `  reply usage: ${event.usage.inputTokens} tokens in / ${event.usage.outputTokens} out`,
          ),
        );
      return;
    }
    switch (event.type) {
      case 'MODEL_CALL_START':
        this.modelCalls++;
        this.line(this.style('gray', `  · model call ${this.modelCalls} (${terminalSafe(event.modelName)})`));
        break;
      case 'MODEL_CALL_END':
        for (const key of Object.keys(this.usage) as Array<keyof Usage>) this.usage[key] += event.usage[key];
        this.endText();
        break;
      case 'TEXT_BLOCK_START':
        this.endText();
        this.out.write('  ');
        this.inText = true;
        break;
      case 'TEXT_BLOCK_DELTA':
        this.out.write(terminalSafe(event.delta, { keepNewlines: true }).replaceAll('\n', '\n  '));
        break;
      case 'TEXT_BLOCK_END':
        this.endText();
        break;
      case 'THINKING_BLOCK_START':
        this.line(this.style(['gray', 'italic'], '  (thinking…)'));
        break;
      case 'HINT_BLOCK':
        this.line(this.style('cyan', `  ⓘ hint: ${compactHint(event.hint)}`));
        break;
      case 'TOOL_CALL_START':
        this.calls.set(event.toolCallId, { name: event.toolCallName, args: '' });
        break;
      case 'TOOL_CALL_DELTA': {
        const call = this.calls.get(event.toolCallId);
        if (call) call.args += event.delta;
        break;
      }
      case 'TOOL_CALL_END': {
        const call = this.calls.get(event.toolCallId);
        if (call)
          this.line(
            `  ${this.style('magenta', '→')} ${this.style('bold', terminalSafe(call.name))} ${this.style('gray', compactArgs(call.args))}`,
          );
        break;
      }
      case 'TOOL_RESULT_START':
        if (!this.calls.has(event.toolCallId))
          this.calls.set(event.toolCallId, { name: event.toolCallName, args: '' });
        this.results.set(event.toolCallId, '');
        break;
      case 'TOOL_RESULT_TEXT_DELTA':
        this.results.set(event.toolCallId, (this.results.get(event.toolCallId) ?? '') + event.delta);
        break;
      case 'TOOL_RESULT_END': {
        const streamed = this.results.get(event.toolCallId) ?? '';
        const saved =
          event.output?.map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('') ?? streamed;
        const lines = saved.trimEnd().split('\n');
        const more = lines.length > 1 ? this.style('gray', ` (+${lines.length - 1} more lines)`) : '';
        const [mark, color] = RESULT_MARK[event.state];
        const name = terminalSafe(this.calls.get(event.toolCallId)?.name ?? 'tool');
        this.line(`  ${this.style(color, `← ${name} ${mark}`)} ${oneLine(lines[0] ?? '', 90)}${more}`);
        break;
      }
      case 'REQUIRE_USER_CONFIRM':
        for (const call of event.toolCalls)
          this.line(
            this.style(
              'yellow',
              `  ⏸ ${terminalSafe(call.name)} needs your confirmation: ${compactArgs(call.input, 70)}`,
            ),
          );
        break;
      case 'REQUIRE_EXTERNAL_EXECUTION':
        for (const call of event.toolCalls)
          this.line(this.style('yellow', `  ⏸ ${terminalSafe(call.name)} must be executed by the caller`));
        break;
      case 'EXCEED_MAX_ITERS':
        this.line(this.style('yellow', '  the reply hit its iteration limit'));
        break;
      case 'CUSTOM':
        this.line(
          this.style('gray', `  · ${terminalSafe(event.name)} ${oneLine(JSON.stringify(event.value), 80)}`),
        );
        break;
      case 'REPLY_END': {
        const stats = `${this.modelCalls} model call${this.modelCalls === 1 ? '' : 's'} in this process`;
        if (event.finishedReason === 'completed')
          this.line(this.style('green', `■ reply completed · ${stats}`));
        else if (event.error)
          this.line(
            this.style(
              'red',
              `■ reply ended: ${event.finishedReason} (${event.error.type}: ${oneLine(event.error.message, 300)}) · ${stats}`,
            ),
          );
        else this.line(this.style('yellow', `■ reply ended: ${event.finishedReason} · ${stats}`));
        break;
      }
      default:
        break;
    }
  }

  /** Prints a tool call that waits for the user, with its full input (for the confirmation prompt). */
  describeCall(call: Pick<ToolCallBlock, 'name' | 'input'>, maxLines = 12): void {
    let args: Record<string, unknown> | undefined;
    try {
      args = JSON.parse(call.input) as Record<string, unknown>;
    } catch {
      args = undefined;
    }
    this.line(this.style('bold', `  ${terminalSafe(call.name)} wants to run with:`));
    const entries =
      args && typeof args === 'object' ? Object.entries(args) : [['input', call.input] as const];
    for (const [key, value] of entries) {
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      const lines = text.split('\n');
      // Shown exactly (a path ending with `\r` or a tab must not look like the path without it), escaped.
      if (lines.length === 1) this.line(`    ${oneLine(key, 40)}: ${cut(terminalSafe(text), 100)}`);
      else {
        this.line(`    ${oneLine(key, 40)}:`);
        for (const l of lines.slice(0, maxLines)) this.line(this.style('gray', `      │ ${terminalSafe(l)}`));
        if (lines.length > maxLines)
          this.line(this.style('gray', `      │ … (${lines.length - maxLines} more lines)`));
      }
    }
  }
}
