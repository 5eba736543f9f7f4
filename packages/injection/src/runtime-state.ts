import type { Msg } from '@agentkit/core';
import type { ResolvedInjectionConfig } from './injection-config';
import { readRecordedTime } from './recorded-time';
import { findRepeatedToolError } from './repeated-tool-error';
import type { ContextScanner } from './context-scanner';
import { scanContext } from './scan-context';
import { CONTEXT_COMPRESSION_TEXT, contextLengthText, DEFAULT_TASK_TOOL_NAMES, tasksText } from './texts';
import { formatTime } from './time-format';
import { isValidTimeZone, wallTimeIn } from './time-zone';

/** Token usage of the next model call and the compression settings, for `<context-length>`. */
export interface ContextUsage {
  inputTokens: number;
  contextSize: number;
  triggerRatio: number;
  contextBufferRatio: number;
  compressionToolEnabled: boolean;
}

/** Everything one injection decision depends on. */
export interface RuntimeStateInput {
  config: ResolvedInjectionConfig;
  /** The agent's context (`state.context`). */
  context: readonly Msg[];
  /** The current reply's message, scanned for repeated tool errors. */
  replyMessage: Msg | undefined;
  /** The reply's iteration; `<context-length>` is only considered at 0. */
  iteration: number;
  now: Date;
  /** Unfinished task counts (zero without a task plugin). */
  tasks: { pending: number; inProgress: number };
  /** Task tool names when the config sets none (from the `tasks` capability). */
  taskToolNames?: readonly string[] | undefined;
  /** Called only at iteration 0 (token counting is not free). */
  contextUsage: () => ContextUsage;
  /**
   * Reads earlier injections from the context. Default `scanContext` (a full scan); the plugin passes a
   * `createContextScanner()` so that a call only reads what was appended since the last one.
   */
  scanner?: ContextScanner | undefined;
  /** Index of the first context message that may still change (the reply's message), for `scanner`. */
  openFrom?: number | undefined;
}

/** One `<key>value</key>` field of an injection. */
export type RuntimeStateField = readonly [key: string, value: string];

/**
 * Decides what to inject before a model call. Returns the fields in order (`current-time`, `timezone`,
 * `tasks`, `context-length`, `context-compression`, `tool-error`, then the extra fields), or an empty
 * list when no dimension triggers (extra fields never trigger alone).
 */
export function collectRuntimeState(input: RuntimeStateInput): RuntimeStateField[] {
  const { config, now } = input;
  const fields = new Map<string, string>();
  const hasUnfinishedTasks = input.tasks.pending > 0 || input.tasks.inProgress > 0;
  const scan = (input.scanner ?? scanContext)(input.context, {
    source: config.injectionSource,
    taskToolNames: config.taskToolNames ?? input.taskToolNames ?? DEFAULT_TASK_TOOL_NAMES,
    hasUnfinishedTasks,
    openFrom: input.openFrom,
  });
  const zone = isValidTimeZone(config.timezone) ? config.timezone : 'UTC';

  // Time: when nothing is recorded, or the record is older than the interval (or in the future).
  let injectTime = true;
  if (scan.lastTimeText !== null) {
    const last = readRecordedTime(scan.lastTimeText, config.timeFormat, zone);
    if (last) {
      const elapsedHours = (now.getTime() - last.getTime()) / 3_600_000;
      injectTime = !(elapsedHours >= 0 && elapsedHours <= config.timeInterval);
    }
  }
  if (injectTime) {
    fields.set('current-time', formatTime(wallTimeIn(now, zone), config.timeFormat));
    fields.set('timezone', config.timezone);
  }

  // Tasks: unfinished tasks the agent shows no sign of knowing about.
  if (hasUnfinishedTasks && !scan.awareOfTasks)
    fields.set('tasks', tasksText(input.tasks.inProgress, input.tasks.pending));

  // Context usage: first iteration only, inside the buffer below the compression threshold.
  if (input.iteration === 0) {
    const usage = input.contextUsage();
    const triggerTokens = Math.floor(usage.triggerRatio * usage.contextSize);
    const bufferStart = Math.max(0, usage.triggerRatio - usage.contextBufferRatio) * usage.contextSize;
    // A model without a usable context size (0, NaN, Infinity) has no threshold to warn about.
    const sized = Number.isFinite(usage.contextSize) && usage.contextSize > 0;
    if (sized && usage.inputTokens > bufferStart) {
      fields.set('context-length', contextLengthText(usage.inputTokens, triggerTokens));
      if (usage.compressionToolEnabled && input.tasks.inProgress === 0)
        fields.set('context-compression', CONTEXT_COMPRESSION_TEXT);
    }
  }

  // Tool error: the same failing call repeated in this reply.
  const repeated = findRepeatedToolError(input.replyMessage, config.toolRetriesLimit);
  if (repeated)
    fields.set(
      'tool-error',
      config.toolRetriesHint
        .replaceAll('{tool_name}', () => repeated.toolName)
        .replaceAll('{count}', () => String(repeated.count)),
    );

  if (fields.size === 0) return [];
  for (const [key, value] of Object.entries(config.extraFields)) fields.set(key, value);
  return [...fields];
}

/** Renders fields as `<key>value</key>` lines into the template's `{runtime_state}` (other braces are kept). */
export function renderRuntimeState(fields: readonly RuntimeStateField[], template: string): string {
  const body = fields.map(([key, value]) => `<${key}>${value}</${key}>`).join('\n');
  return template.replaceAll('{runtime_state}', () => body);
}
