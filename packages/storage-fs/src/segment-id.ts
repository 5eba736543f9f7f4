import { fileSegment } from './file-names';

const ESCAPED = /^_(?:[a-z0-9_-]|%[0-9A-F]{2})+$/;
const HASHED = /^~[0-9a-f]{64}$/;

/**
 * The id a name made by {@link fileSegment} stands for: the id itself for an escaped name, `null` for a
 * hashed one (a long id: read it from the file), `undefined` when the name is not one `fileSegment`
 * makes (another program's file, a temp file, a lease directory).
 */
export function segmentId(name: string): string | null | undefined {
  if (HASHED.test(name)) return null;
  if (!ESCAPED.test(name)) return undefined;
  try {
    const id = decodeURIComponent(name.slice(1));
    return fileSegment(id) === name ? id : undefined;
  } catch {
    return undefined; // not UTF-8
  }
}
