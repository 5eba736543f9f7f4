import type { Msg } from '@agentkit/core';
import { type ContextScan, hintText, readMessage } from './scan-context';

/** Options of a {@link ContextScanner} call. */
export interface ContextScanOptions {
  /** `source` of the injections to look for. */
  source: string;
  /** Tool names whose calls show the agent knows its tasks. */
  taskToolNames: readonly string[];
  /** Whether there are unfinished tasks (without any, the agent counts as aware of them). */
  hasUnfinishedTasks: boolean;
  /**
   * Index of the first message that may still change (the reply in progress); the messages before it are
   * final until the context array is replaced. Default: the last message.
   */
  openFrom?: number | undefined;
}

/** Scans a context for earlier injections; same answer as `scanContext`. */
export type ContextScanner = (context: readonly Msg[], options: ContextScanOptions) => ContextScan;

/** What the final messages `[0, done)` of one context array say. */
interface Memo {
  source: string;
  taskToolNames: readonly string[];
  done: number;
  first: Msg | undefined;
  last: Msg | undefined;
  lastContentLength: number;
  lastTimeText: string | null;
  aware: boolean;
}

const sameNames = (a: readonly string[], b: readonly string[]) =>
  a === b || (a.length === b.length && a.every((name, i) => name === b[i]));

function isValid(
  memo: Memo,
  context: readonly Msg[],
  options: ContextScanOptions,
  openFrom: number,
): boolean {
  return (
    memo.source === options.source &&
    sameNames(memo.taskToolNames, options.taskToolNames) &&
    memo.done <= openFrom &&
    (memo.done === 0 ||
      (context[0] === memo.first &&
        context[memo.done - 1] === memo.last &&
        memo.last!.content.length === memo.lastContentLength))
  );
}

/**
 * A {@link ContextScanner} that remembers, per context array, what the final messages said and afterwards
 * only reads the messages appended since plus the open ones (the reply in progress). So the cost of a call
 * does not grow with the conversation. A replaced context array (compression), another source or other
 * task tool names start over. It assumes what the kernel guarantees: a context array only grows until it
 * is replaced, and only the reply's message changes. (It also starts over when the first message or the
 * last remembered message is no longer the same object or has another number of blocks.)
 *
 * @example
 * const scan = createContextScanner();
 * const { lastTimeText } = scan(state.context, { source: 'injection', taskToolNames: [], hasUnfinishedTasks: false });
 */
export function createContextScanner(): ContextScanner {
  const memos = new WeakMap<readonly Msg[], Memo>();
  return (context, options) => {
    const openFrom = Math.max(0, Math.min(options.openFrom ?? context.length - 1, context.length));
    let memo = memos.get(context);
    if (!memo || !isValid(memo, context, options, openFrom)) {
      memo = {
        source: options.source,
        taskToolNames: [...options.taskToolNames],
        done: 0,
        first: undefined,
        last: undefined,
        lastContentLength: 0,
        lastTimeText: null,
        aware: false,
      };
      memos.set(context, memo);
    }
    // Fold the messages that became final into the memo, oldest first (a newer time replaces an older one).
    for (let i = memo.done; i < openFrom; i++) {
      const msg = context[i]!;
      if (msg.role !== 'assistant') continue;
      for (const block of msg.content) {
        if (block.type === 'hint' && block.source === options.source) {
          const text = hintText(block.hint);
          if (text.includes('<current-time>')) memo.lastTimeText = text;
          if (text.includes('<tasks>')) memo.aware = true;
        } else if (block.type === 'tool_call' && options.taskToolNames.includes(block.name)) {
          memo.aware = true;
        }
      }
    }
    if (openFrom > memo.done) {
      memo.done = openFrom;
      memo.first = context[0];
      memo.last = context[openFrom - 1];
      memo.lastContentLength = memo.last!.content.length;
    }
    // The open messages, newest first, as a full scan reads them.
    const found: ContextScan = {
      lastTimeText: null,
      awareOfTasks: !options.hasUnfinishedTasks || memo.aware,
    };
    for (let i = context.length - 1; i >= openFrom; i--) if (readMessage(context[i]!, options, found)) break;
    return { lastTimeText: found.lastTimeText ?? memo.lastTimeText, awareOfTasks: found.awareOfTasks };
  };
}
