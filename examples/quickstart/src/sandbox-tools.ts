import { lstat, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { defineTool, type Tool } from '@agentkit/core';
import { openInSandbox } from './open-in-sandbox';
import { checkFolders, resolveInSandbox } from './resolve-in-sandbox';

/** Largest file `read_file` returns in full (the rest is cut, and the result says so). */
export const READ_LIMIT_BYTES = 64 * 1024;
/** Largest content `write_file` accepts. */
export const WRITE_LIMIT_BYTES = 256 * 1024;
const LIST_LIMIT = 200;

/**
 * The demo's file tools, confined to one folder: `list_files` and `read_file` run freely (and in
 * parallel); `write_file` asks the user for confirmation before every call. No tool follows a symbolic
 * link (a cloned repository or an unpacked archive can plant one): files are opened with
 * {@link openInSandbox}, listings skip links.
 */
export function sandboxTools(sandbox: string): Tool[] {
  const listFiles = defineTool<{ path?: string }>({
    name: 'list_files',
    description: 'List the files in a folder of the sandbox (recursively), with their sizes in bytes.',
    inputSchema: {
      type: 'object',
      properties: { path: { type: 'string', description: "A folder relative to the sandbox; default '.'." } },
      additionalProperties: false,
    },
    concurrencySafe: true,
    idempotent: true, // a read: running it again after a crash changes nothing
    async execute({ path = '.' }) {
      const { root, full: base, parts } = await resolveInSandbox(sandbox, path);
      await checkFolders(root, parts, path);
      const lines: string[] = [];
      const walk = async (dir: string): Promise<void> => {
        const entries = await readdir(dir, { withFileTypes: true });
        entries.sort((a, b) => a.name.localeCompare(b.name));
        for (const entry of entries) {
          if (lines.length >= LIST_LIMIT) return;
          const full = join(dir, entry.name);
          // Entries describe themselves, not what a link points to: links are neither folders nor files.
          if (entry.isDirectory()) await walk(full);
          else if (entry.isFile()) lines.push(`${relative(root, full)} (${(await lstat(full)).size} bytes)`);
        }
      };
      await walk(base);
      if (lines.length === 0) return `No files in '${path}'.`;
      return lines.length >= LIST_LIMIT
        ? `${lines.join('\n')}\n… (listing cut at ${LIST_LIMIT} files)`
        : lines.join('\n');
    },
  });

  const readFileTool = defineTool<{ path: string }>({
    name: 'read_file',
    description: 'Read a UTF-8 text file of the sandbox.',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: "A file relative to the sandbox, e.g. 'notes.md'." },
      },
      required: ['path'],
      additionalProperties: false,
    },
    concurrencySafe: true,
    idempotent: true, // a read: running it again after a crash changes nothing
    async execute({ path }) {
      const file = await openInSandbox(sandbox, path, 'read');
      try {
        const { size } = await file.stat();
        const { buffer, bytesRead } = await file.read(Buffer.alloc(Math.min(size, READ_LIMIT_BYTES)), 0);
        const text = buffer.subarray(0, bytesRead).toString('utf8');
        if (size <= READ_LIMIT_BYTES) return text;
        return `${text}\n… (cut: the file has ${size} bytes, only the first ${READ_LIMIT_BYTES} are shown)`;
      } finally {
        await file.close();
      }
    },
  });

  const writeFileTool = defineTool<{ path: string; content: string }>({
    name: 'write_file',
    description: 'Create or overwrite a UTF-8 text file in the sandbox. The user confirms every write.',
    inputSchema: {
      type: 'object',
      properties: {
        path: { type: 'string', description: "A file relative to the sandbox, e.g. 'summary.md'." },
        content: { type: 'string', description: 'The whole new content of the file.' },
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
    needsConfirmation: true,
    async execute({ path, content }) {
      const bytes = Buffer.byteLength(content, 'utf8');
      if (bytes > WRITE_LIMIT_BYTES)
        throw new Error(`The content has ${bytes} bytes; the limit is ${WRITE_LIMIT_BYTES}.`);
      const file = await openInSandbox(sandbox, path, 'write');
      try {
        await file.truncate(0);
        await file.writeFile(content, 'utf8');
      } finally {
        await file.close();
      }
      return { output: `Wrote ${bytes} bytes to ${path}.`, metadata: { path, bytes } };
    },
  });

  return [listFiles, readFileTool, writeFileTool];
}
