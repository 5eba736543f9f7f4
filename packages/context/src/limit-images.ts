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
const imageCounts = new WeakMap<Msg, { length: number; count: number }>();

function countImages(msg: Msg, cache: boolean): number {
  const hit = cache ? imageCounts.get(msg) : undefined;
  if (hit && hit.length === msg.content.length) return hit.count;
  let count = 0;
  for (const block of msg.content) {
    if (isImage(block)) count++;
    else if (block.type === 'tool_result') for (const p of block.output) count += isImage(p) ? 1 : 0;
    else if (block.type === 'hint' && typeof block.hint !== 'string')
      for (const p of block.hint) count += isImage(p) ? 1 : 0;
  }
  if (cache) imageCounts.set(msg, { length: msg.content.length, count });
  return count;
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
  let total = 0;
  for (let m = 0; m < context.length; m++) total += countImages(context[m]!, m < context.length - 1);
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
