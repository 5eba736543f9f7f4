import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The files the sandbox starts with on every run of the demo. */
export const SANDBOX_FILES: Readonly<Record<string, string>> = {
  'notes.md': [
    '# Team sync, Monday',
    '',
    '- The release moves to Thursday: the migration script needs one more review.',
    '- Ana takes over the on-call rotation from Ben next week.',
    '- Search is slow on large projects (customer feedback); profile it before the release.',
    '- The office is closed on Friday.',
    '',
  ].join('\n'),
  'todo.txt': [
    'review the migration script',
    'profile search on a large project',
    'update the on-call calendar',
    '',
  ].join('\n'),
};

/** Empties the sandbox and writes {@link SANDBOX_FILES} into it, so every run starts the same. */
export async function seedSandbox(sandbox: string): Promise<void> {
  await rm(sandbox, { recursive: true, force: true });
  await mkdir(sandbox, { recursive: true });
  for (const [name, text] of Object.entries(SANDBOX_FILES)) await writeFile(join(sandbox, name), text);
}
