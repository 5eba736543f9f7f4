import { constants } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { type SessionKey, StoreDataError } from '@agentkit/core';

/** How much of a file a listing reads per step while looking for the end of the summary line. */
const HEAD_CHUNK = 16 * 1024;

function tooLarge(key: SessionKey, what: string, maxBytes: number): StoreDataError {
  return new StoreDataError(
    key,
    `${what} is larger than maxRecordBytes (${maxBytes} bytes); raise the store's maxRecordBytes to read it.`,
  );
}

/**
 * Opens a file to read it, without blocking on a FIFO or a device (`O_NONBLOCK`: opening a FIFO for
 * reading would wait for a writer forever, holding one of libuv's few threads); a FIFO, socket or device
 * is a `StoreDataError` naming `key`. Returns the handle and the file's size.
 */
async function openRegularFile(path: string, key: SessionKey): Promise<{ handle: FileHandle; size: number }> {
  const handle = await open(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  try {
    const info = await handle.stat();
    // (A directory fails its first read with EISDIR, as before.)
    if (info.isFIFO() || info.isSocket() || info.isCharacterDevice() || info.isBlockDevice())
      throw new StoreDataError(key, 'its file is not a regular file (a FIFO, a socket or a device).');
    return { handle, size: info.size };
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/**
 * The whole text of a file of at most `maxBytes` (checked with `fstat` before reading, so an oversized
 * file costs no memory); `StoreDataError` naming `key` for a larger one.
 */
export async function readWholeFile(path: string, maxBytes: number, key: SessionKey): Promise<string> {
  const { handle, size } = await openRegularFile(path, key);
  try {
    if (size > maxBytes) throw tooLarge(key, `its file (${size} bytes)`, maxBytes);
    const buffer = Buffer.allocUnsafe(size);
    let filled = 0;
    while (filled < size) {
      const { bytesRead } = await handle.read(buffer, filled, size - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled).toString('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * The first line of a file (without its newline), or the whole file when it has none, reading at most
 * `maxBytes`; `StoreDataError` naming `key` when the line is longer.
 */
export async function readFirstLine(path: string, maxBytes: number, key: SessionKey): Promise<string> {
  const { handle } = await openRegularFile(path, key);
  try {
    const parts: Buffer[] = [];
    for (let position = 0; ; ) {
      const want = Math.min(HEAD_CHUNK, maxBytes + 1 - position);
      const buffer = Buffer.allocUnsafe(want);
      const { bytesRead } = await handle.read(buffer, 0, want, position);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      const newline = chunk.indexOf(0x0a);
      if (newline >= 0) {
        parts.push(chunk.subarray(0, newline));
        break;
      }
      parts.push(chunk);
      position += bytesRead;
      if (position > maxBytes) throw tooLarge(key, 'its summary line', maxBytes);
    }
    return Buffer.concat(parts).toString('utf8');
  } finally {
    await handle.close();
  }
}
