import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  ConfigError,
  type ContentBlock,
  type DataBlock,
  type Msg,
  type TextBlock,
  type ToolResultBlock,
} from '@agentkit/core';
import { fileSegment } from '@agentkit/core/store';
import { OffloadPathError } from './errors';
import type { Offloader } from './offloader';

/** Options of {@link FileOffloader}. */
export interface FileOffloaderOptions {
  /** The offload directory (created on first use). */
  directory: string;
  /**
   * The user whose sessions this offloader writes, as the session store knows them (`SessionKey.userId`).
   * Session ids are unique only per user and agent, so folders are keyed by all three, like the stores do:
   * two users with the same session id never share an archive. Build the offloader where the agent is
   * built (in `runSession`'s `agent` factory: `record.userId`).
   */
  userId: string;
  /** The agent, as the session store knows it (`SessionKey.agentId`; in `runSession`: `record.agentId`). */
  agentId: string;
  /**
   * How offloaded data blocks are referred to. By default a `file://` URL of the file; with a base such as
   * `'workspace:///'` the URL is the base followed by the path inside the directory (`workspace:///data/<hash>.png`).
   */
  dataUrlBase?: string | undefined;
}

const EXTENSIONS: Record<string, string> = {
  'image/png': '.png',
  'image/jpeg': '.jpg',
  'image/jpg': '.jpg',
  'image/gif': '.gif',
  'image/webp': '.webp',
  'image/svg+xml': '.svg',
  'image/bmp': '.bmp',
  'image/tiff': '.tiff',
  'image/heic': '.heic',
  'audio/wav': '.wav',
  'audio/x-wav': '.wav',
  'audio/mpeg': '.mp3',
  'audio/mp3': '.mp3',
  'audio/ogg': '.ogg',
  'audio/flac': '.flac',
  'audio/webm': '.weba',
  'video/mp4': '.mp4',
  'video/webm': '.webm',
  'application/pdf': '.pdf',
  'application/json': '.json',
  'application/zip': '.zip',
  'text/plain': '.txt',
  'text/csv': '.csv',
  'text/html': '.html',
  'text/markdown': '.md',
};

/** The file extension for a media type (`.bin` when unknown). */
export function extensionFor(mediaType: string): string {
  return EXTENSIONS[mediaType.toLowerCase().split(';')[0]!.trim()] ?? '.bin';
}

const escapeAttr = (s: string) =>
  s.replace(/&/g, '&amp;').replace(/'/g, '&apos;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/**
 * Pending appends per absolute file, shared by every offloader of the process: a large batch is written in
 * several chunks, so two offloaders on one directory (agents built per request) must not append at once.
 */
const appends = new Map<string, Promise<void>>();

/**
 * An {@link Offloader} that writes to a local directory:
 *
 * - `data/<sha256 of the base64 text><ext>`: offloaded data blocks (written once; same content, same file,
 *   shared by every session of the directory: a file's name is the hash of its bytes);
 * - `sessions/<user>/<agent>/<session>/context.jsonl`: compressed messages, one JSON message per line,
 *   appended (inline data blocks are offloaded first and replaced by URL blocks; appends are serialised
 *   within the process, so two processes should not compress one session at the same time);
 * - `sessions/<user>/<agent>/<session>/tool_result-<call id>.txt` (then `…(1).txt`, `…(2).txt`): cut-off tool
 *   output, text verbatim and `<data url='…' name='…' media_type='…'/>` for data.
 *
 * One offloader writes the sessions of one user and agent (`userId`, `agentId`). Ids become names with
 * core's `fileSegment` (the escaping `@agentkit/storage-fs` uses), so no id escapes the directory and ids
 * that differ only by case or a trailing dot never share a folder on macOS or Windows. Folders below the
 * directory and `context.jsonl` are never followed when they are symbolic links ({@link OffloadPathError}),
 * so a link planted inside the directory cannot redirect a write outside it. Returned paths are absolute.
 * @example new FileOffloader({ directory: '.agent/offload', userId: record.userId, agentId: record.agentId })
 */
export class FileOffloader implements Offloader {
  /** The absolute offload directory. */
  readonly directory: string;
  /** The user whose sessions this offloader writes. */
  readonly userId: string;
  /** The agent whose sessions this offloader writes. */
  readonly agentId: string;
  private readonly dataUrlBase: string | undefined;

  /** @throws {ConfigError} when `directory`, `userId` or `agentId` is missing or empty. */
  constructor(options: FileOffloaderOptions) {
    for (const field of ['directory', 'userId', 'agentId'] as const)
      if (typeof options?.[field] !== 'string' || options[field] === '')
        throw new ConfigError(
          `FileOffloader needs a \`${field}\` (a non-empty string)${field === 'directory' ? '' : ': offload folders are keyed by user, agent and session, like sessions in a store'}.`,
          { field },
        );
    this.directory = resolve(options.directory);
    this.userId = options.userId;
    this.agentId = options.agentId;
    this.dataUrlBase = options.dataUrlBase;
  }

  async offloadDataBlock(block: DataBlock): Promise<DataBlock> {
    if (block.source.type !== 'base64') return block;
    const { data, mediaType } = block.source;
    const rel = `data/${createHash('sha256').update(data).digest('hex')}${extensionFor(mediaType)}`;
    const file = join(this.directory, rel);
    if (!(await isRegularFile(file))) {
      await this.subdir('data');
      // Write then rename: a crash never leaves a half-written file under the final (content-hash) name.
      const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
      await writeFile(tmp, Buffer.from(data, 'base64'));
      await rename(tmp, file);
    }
    const url = this.dataUrlBase !== undefined ? this.dataUrlBase + rel : pathToFileURL(file).href;
    return { ...block, source: { type: 'url', url, mediaType } };
  }

  async offloadContext(sessionId: string, msgs: readonly Msg[]): Promise<string> {
    const dir = await this.sessionDir(sessionId);
    const file = join(dir, 'context.jsonl');
    let lines = '';
    for (const msg of msgs) {
      const content = await Promise.all(msg.content.map((b) => this.offloadInline(b)));
      lines += `${JSON.stringify({ ...msg, content })}\n`;
    }
    // Appends to one file are serialised (across offloaders of this process) so lines never interleave.
    const previous = appends.get(file) ?? Promise.resolve();
    const next = previous.catch(() => {}).then(() => appendNoFollow(file, lines));
    appends.set(file, next);
    try {
      await next;
    } finally {
      if (appends.get(file) === next) appends.delete(file);
    }
    return file;
  }

  async offloadToolResult(sessionId: string, result: ToolResultBlock): Promise<string> {
    const dir = await this.sessionDir(sessionId);
    let text = '';
    for (const part of result.output) {
      if (part.type === 'text') text += part.text;
      else {
        const block = await this.offloadDataBlock(part);
        const url = block.source.type === 'url' ? block.source.url : '';
        const name = block.name ? ` name='${escapeAttr(block.name)}'` : '';
        text += `<data url='${escapeAttr(url)}'${name} media_type='${escapeAttr(block.source.mediaType)}'/>`;
      }
    }
    const base = `tool_result-${fileSegment(result.id)}`;
    for (let n = 0; ; n++) {
      const file = join(dir, n === 0 ? `${base}.txt` : `${base}(${n}).txt`);
      try {
        const handle = await open(file, 'wx');
        try {
          await handle.writeFile(text, 'utf8');
        } finally {
          await handle.close();
        }
        return file;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || n >= 10_000) throw error;
      }
    }
  }

  private async sessionDir(sessionId: string): Promise<string> {
    return this.subdir(
      'sessions',
      fileSegment(this.userId),
      fileSegment(this.agentId),
      fileSegment(String(sessionId)),
    );
  }

  /** Creates (or checks) the folders below the offload directory, one by one, refusing symbolic links. */
  private async subdir(...parts: string[]): Promise<string> {
    await mkdir(this.directory, { recursive: true });
    let dir = this.directory;
    for (const part of parts) {
      dir = join(dir, part);
      try {
        await mkdir(dir);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const info = await lstat(dir);
      if (info.isSymbolicLink() || !info.isDirectory())
        throw new OffloadPathError(
          `'${dir}' is ${info.isSymbolicLink() ? 'a symbolic link' : 'not a directory'}; the offloader writes only inside '${this.directory}'.`,
        );
    }
    return dir;
  }

  private async offloadInline(block: ContentBlock): Promise<ContentBlock> {
    switch (block.type) {
      case 'data':
        return this.offloadDataBlock(block);
      case 'tool_result':
        return { ...block, output: await Promise.all(block.output.map((p) => this.offloadPart(p))) };
      case 'hint':
        return typeof block.hint === 'string'
          ? block
          : { ...block, hint: await Promise.all(block.hint.map((p) => this.offloadPart(p))) };
      default:
        return block;
    }
  }

  private async offloadPart(part: TextBlock | DataBlock): Promise<TextBlock | DataBlock> {
    return part.type === 'data' ? this.offloadDataBlock(part) : part;
  }
}

/** True for a regular file (a symbolic link, even to a file, is replaced rather than trusted). */
async function isRegularFile(file: string): Promise<boolean> {
  try {
    return (await lstat(file)).isFile();
  } catch {
    return false;
  }
}

/** Appends text, refusing to follow a symbolic link at `file`. */
async function appendNoFollow(file: string, text: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(
      file,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
      0o644,
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOOP')
      throw new OffloadPathError(`'${file}' is a symbolic link; the offloader does not follow it.`, {
        cause: error,
      });
    throw error;
  }
  try {
    await handle.writeFile(text, 'utf8');
  } finally {
    await handle.close();
  }
}
