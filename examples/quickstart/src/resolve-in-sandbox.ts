import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { SandboxPathError } from './sandbox-path-error';

const inside = (root: string, full: string): boolean => {
  const rel = relative(root, full);
  return rel === '' || (!rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel));
};

async function realOrNull(path: string): Promise<string | null> {
  try {
    return await realpath(path);
  } catch {
    return null;
  }
}

/**
 * Resolves a path the model gave against the sandbox folder and makes sure it stays inside, symlinks
 * included (the nearest existing ancestor is resolved, so a path to a file that does not exist yet is
 * checked too). Throws {@link SandboxPathError} otherwise.
 */
export async function resolveInSandbox(sandbox: string, path: string): Promise<string> {
  if (typeof path !== 'string' || path.trim() === '') throw new SandboxPathError(String(path), 'is empty');
  if (path.includes('\0')) throw new SandboxPathError(path, 'contains a NUL byte');
  if (isAbsolute(path)) throw new SandboxPathError(path, 'is absolute');
  const root = (await realOrNull(sandbox)) ?? resolve(sandbox);
  const full = resolve(root, path);
  if (!inside(root, full)) throw new SandboxPathError(path, 'leaves the sandbox');
  let existing = full;
  let real = await realOrNull(existing);
  while (real === null && existing !== root) {
    existing = dirname(existing);
    real = await realOrNull(existing);
  }
  if (real !== null && !inside(root, real))
    throw new SandboxPathError(path, 'leads outside the sandbox through a symlink');
  return full;
}
