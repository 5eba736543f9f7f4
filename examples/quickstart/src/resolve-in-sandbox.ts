import { lstat, mkdir, realpath } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { SandboxPathError } from './sandbox-path-error';

/** A path the model gave, resolved inside the sandbox folder (not yet checked on disk). */
export interface SandboxPath {
  /** The sandbox folder, symlinks resolved (the folder itself may be reached through one). */
  root: string;
  /** The absolute path. */
  full: string;
  /** Its names below `root`, in order (`[]` for the sandbox folder itself). */
  parts: string[];
}

/**
 * Resolves a path the model gave against the sandbox folder and makes sure it stays inside, on paper:
 * not empty, no NUL byte, not absolute, no `..` out of it. `..` inside the path is resolved here, so the
 * file system never sees one. Throws {@link SandboxPathError} otherwise. What is on disk (symbolic links)
 * is checked by {@link checkFolders} and `openInSandbox`.
 */
export async function resolveInSandbox(sandbox: string, path: string): Promise<SandboxPath> {
  if (typeof path !== 'string' || path.trim() === '') throw new SandboxPathError(String(path), 'is empty');
  if (path.includes('\0')) throw new SandboxPathError(path, 'contains a NUL byte');
  if (isAbsolute(path)) throw new SandboxPathError(path, 'is absolute');
  const root = await realpath(sandbox).catch(() => resolve(sandbox));
  const full = resolve(root, path);
  const rel = relative(root, full);
  if (rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel))
    throw new SandboxPathError(path, 'leaves the sandbox');
  return { root, full, parts: rel === '' ? [] : rel.split(sep) };
}

/**
 * Checks, one by one from the sandbox down, that `folders` (names below `root`) are real folders and not
 * symbolic links, which could lead anywhere. With `create`, missing folders are made (one `mkdir` each,
 * which never follows a link either). Throws {@link SandboxPathError}, or the file system's `ENOENT`.
 */
export async function checkFolders(
  root: string,
  folders: readonly string[],
  path: string,
  create = false,
): Promise<void> {
  let dir = root;
  for (const name of folders) {
    dir = join(dir, name);
    if (create)
      await mkdir(dir).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error;
      });
    const info = await lstat(dir);
    const shown = relative(root, dir);
    if (info.isSymbolicLink())
      throw new SandboxPathError(path, `goes through '${shown}', a symbolic link (which could lead outside)`);
    if (!info.isDirectory())
      throw new SandboxPathError(path, `goes through '${shown}', which is not a folder`);
  }
}
