import type { DataBlock } from '@agentkit/core';

/** A URL the provider can fetch or decode itself: `https:`, `http:` or `data:`. */
export function sendableUrl(block: DataBlock): string | undefined {
  if (block.source.type === 'base64') return `data:${block.source.mediaType};base64,${block.source.data}`;
  return /^(https?|data):/i.test(block.source.url) ? block.source.url : undefined;
}

/** The text sent in place of data the API cannot take (an unknown media type, a store-only URL). */
export function unsupportedDataText(block: DataBlock): string {
  const name = block.name ? `'${block.name}' ` : '';
  return `[attachment ${name}(${block.source.mediaType}) omitted: it cannot be sent to this model]`;
}

/** A file name for a data block (the block's name, else one derived from the media type). */
export function fileName(block: DataBlock): string {
  if (block.name) return block.name;
  const ext = block.source.mediaType.split('/')[1]?.split(/[+;]/)[0] ?? 'bin';
  return `${block.id}.${ext}`;
}
