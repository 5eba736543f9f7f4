import type { ContentBlock, DataBlock, Logger, Msg, TextBlock } from '@agentkit/core';
import type { Offloader } from './offloader';

/** Options of {@link limitContextImages}. */
export interface LimitImagesOptions {
  /** How many images may stay. */
  maxImageNum: number;
  /** Offloads inline images so the agent is told where they went; without it they are removed. */
  offloader?: Offloader | undefined;
  /** `source` of the hint blocks that replace top-level images of assistant messages. */
  hintSource: string | null;
  /** Told when offloading an image fails (the image then stays). */
  logger?: Logger | undefined;
  /**
   * Index of the first message that may still change (the reply's message); see
   * {@link countContextImages}. Default: the last message.
   */
  openFrom?: number | undefined;
}

interface ImageRef {
  m: number;
  b: number;
  /** Index inside a tool result's output or a hint's list; -1 at the top level. */
  j: number;
  block: DataBlock;
}

const isImage = (b: ContentBlock): b is DataBlock =>
  b.type === 'data' && b.source.mediaType.startsWith('image/');

function countImages(msg: Msg): number {
  let count = 0;
  for (const block of msg.content) {
    if (isImage(block)) count++;
    else if (block.type === 'tool_result') for (const p of block.output) count += isImage(p) ? 1 : 0;
    else if (block.type === 'hint' && typeof block.hint !== 'string')
      for (const p of block.hint) count += isImage(p) ? 1 : 0;
  }
  return count;
}

/** The images of the final messages `[0, done)` of one context array. */
interface ImageMemo {
  done: number;
  first: Msg | undefined;
  last: Msg | undefined;
  lastLength: number;
  count: number;
}

const imageMemos = new WeakMap<readonly Msg[], ImageMemo>();

/**
 * How many images the context holds (top level, inside tool results and inside hints). The messages before
 * `openFrom` (default: all but the last) are final until the array is replaced, as the kernel guarantees
 * (only the reply's message changes); their count is remembered per context array, so a call only reads
 * the messages appended since the last one and the open ones. Starts over when `openFrom` is before what
 * was counted, or when the first or last counted message is no longer the same object or has another
 * number of blocks.
 */
export function countContextImages(context: readonly Msg[], openFrom = context.length - 1): number {
  const open = Math.max(0, Math.min(openFrom, context.length));
  let memo = imageMemos.get(context);
  const valid =
    memo !== undefined &&
    memo.done <= open &&
    (memo.done === 0 ||
      (context[0] === memo.first &&
        context[memo.done - 1] === memo.last &&
        memo.last!.content.length === memo.lastLength));
  if (!valid) {
    memo = { done: 0, first: undefined, last: undefined, lastLength: 0, count: 0 };
    imageMemos.set(context, memo);
  }
  const m = memo!;
  for (let i = m.done; i < open; i++) m.count += countImages(context[i]!);
  if (open > m.done) {
    m.done = open;
    m.first = context[0];
    m.last = context[open - 1];
    m.lastLength = m.last!.content.length;
  }
  let total = m.count;
  for (let i = open; i < context.length; i++) total += countImages(context[i]!);
  return total;
}

/** The note that replaces an image: where it was offloaded to (`url`), or that it was removed. */
export function imageNote(block: DataBlock, url: string | undefined): string {
  const named = block.name ? `named '${block.name}' ` : '';
  return url
    ? `<system-reminder>The image ${named}is offloaded into ${url}, you can refer to it when needed.</system-reminder>`
    : `<system-reminder>The image ${named}is removed to free up context space.</system-reminder>`;
}

/**
 * Keeps at most `maxImageNum` images in the context (top level, inside tool results and inside hints, counted
 * in chronological order). Each older image is replaced by a note: "offloaded into <url>" when it has a URL or
 * the offloader stored it, else "removed". The note is a hint block at the top level of a non-user message and
 * a text block elsewhere. Returns the new context (changed messages are copies), or `null` when nothing changed,
 * so calling it again is a no-op.
 */
export async function limitContextImages(
  context: readonly Msg[],
  options: LimitImagesOptions,
): Promise<Msg[] | null> {
  const { maxImageNum } = options;
  const total = countContextImages(context, options.openFrom);
  if (total <= maxImageNum) return null;

  const refs: ImageRef[] = [];
  const need = total - maxImageNum;
  outer: for (let m = 0; m < context.length; m++) {
    const content = context[m]!.content;
    for (let b = 0; b < content.length; b++) {
      const block = content[b]!;
      const parts =
        block.type === 'tool_result'
          ? block.output
          : block.type === 'hint' && typeof block.hint !== 'string'
            ? block.hint
            : null;
      if (isImage(block)) refs.push({ m, b, j: -1, block });
      else if (parts)
        parts.forEach((p, j) => {
          if (isImage(p)) refs.push({ m, b, j, block: p });
        });
      if (refs.length >= need) break outer;
    }
  }

  const next = [...context];
  let changed = false;
  for (const ref of refs.slice(0, need)) {
    let url: string | undefined;
    if (ref.block.source.type === 'url') url = ref.block.source.url;
    else if (options.offloader) {
      try {
        const stored = await options.offloader.offloadDataBlock(ref.block);
        if (stored.source.type === 'url') url = stored.source.url;
      } catch (error) {
        // Keep the image rather than lose it when the offloader fails (disk full, permissions…).
        options.logger?.warn(
          '@agentkit/context: offloading an image failed; it stays in the context.',
          error,
        );
        continue;
      }
    }
    const text = imageNote(ref.block, url);
    const msg = next[ref.m]!;
    const content = msg === context[ref.m] ? [...msg.content] : msg.content;
    if (ref.j === -1) {
      content[ref.b] =
        msg.role === 'user'
          ? { type: 'text', id: ref.block.id, text }
          : {
              type: 'hint',
              id: ref.block.id,
              hint: text,
              source: options.hintSource,
              createdAt: new Date().toISOString(),
            };
    } else {
      const holder = content[ref.b]!;
      const note: TextBlock = { type: 'text', id: ref.block.id, text };
      if (holder.type === 'tool_result') {
        const output = [...holder.output];
        output[ref.j] = note;
        content[ref.b] = { ...holder, output };
      } else if (holder.type === 'hint' && typeof holder.hint !== 'string') {
        const hint = [...holder.hint];
        hint[ref.j] = note;
        content[ref.b] = { ...holder, hint };
      }
    }
    next[ref.m] = { ...msg, content };
    changed = true;
  }
  return changed ? next : null;
}
