import { constants } from 'node:fs';
import { type FileHandle, lstat, open } from 'node:fs/promises';
import { checkFolders, resolveInSandbox } from './resolve-in-sandbox';
import { SandboxPathError } from './sandbox-path-error';

// Not defined on Windows, where creating a symbolic link needs privileges; the other checks still apply.
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;
// A FIFO planted in the sandbox must not block the tool: open without waiting, then refuse what is not a file.
const NO_WAIT = constants.O_NONBLOCK ?? 0;

/**
 * Opens a file of the sandbox for reading, or for writing (created when missing, never truncated here:
 * call `truncate(0)` once it is open), without ever following a symbolic link:
 *
 * 1. the path is resolved on paper ({@link resolveInSandbox});
 * 2. every folder on the way is checked with `lstat` (made, for writing) and must not be a link;
 * 3. the file is opened with `O_NOFOLLOW`, so a link as the last name — a dangling one included — fails;
 * 4. the open file must be a regular file with no other hard link;
 * 5. the folders are checked again and the path must still name the very file that was opened (device
 *    and inode), so a folder swapped for a link between steps 2 and 3 is caught before a byte is read or
 *    written. (In that race an empty file may be created at the link's target; nothing is written to it.)
 *
 * Throws {@link SandboxPathError}, or the file system's error (`ENOENT` for a missing file to read).
 */
export async function openInSandbox(
  sandbox: string,
  path: string,
  mode: 'read' | 'write',
): Promise<FileHandle> {
  const { root, full, parts } = await resolveInSandbox(sandbox, path);
  if (parts.length === 0) throw new SandboxPathError(path, 'is the sandbox folder, not a file');
  const folders = parts.slice(0, -1);
  await checkFolders(root, folders, path, mode === 'write');
  const flags =
    (mode === 'write' ? constants.O_WRONLY | constants.O_CREAT : constants.O_RDONLY) | NO_FOLLOW | NO_WAIT;
  let handle: FileHandle;
  try {
    handle = await open(full, flags, 0o644);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ELOOP (Linux, macOS) or EMLINK (BSD): the last name is a symbolic link. ENXIO: a FIFO nobody reads.
    if (code === 'ELOOP' || code === 'EMLINK')
      throw new SandboxPathError(path, 'is a symbolic link (which could lead outside)', { cause: error });
    if (code === 'ENXIO') throw new SandboxPathError(path, 'is not a regular file', { cause: error });
    throw error;
  }
  try {
    const opened = await handle.stat({ bigint: true });
    if (!opened.isFile()) throw new SandboxPathError(path, 'is not a regular file');
    if (opened.nlink > 1n)
      throw new SandboxPathError(path, 'has other hard links (which could lead outside the sandbox)');
    await checkFolders(root, folders, path);
    const now = await lstat(full, { bigint: true });
    if (now.dev !== opened.dev || now.ino !== opened.ino)
      throw new SandboxPathError(path, 'changed while it was being opened');
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}
