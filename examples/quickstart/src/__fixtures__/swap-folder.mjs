// Test helper, run as a child process: keeps replacing `<sandbox>/sub` by a real folder, then by a
// symbolic link to `<outside>`, as an attacker racing the sandbox checks would. Says 'ready' once, then runs
// until it is killed.
import { lstatSync, mkdirSync, rmSync, symlinkSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';

const [sandbox, outside] = process.argv.slice(2);
const sub = join(sandbox, 'sub');

/** Removes `sub` without ever following it (a link is unlinked; its target is left alone). */
function remove() {
  try {
    if (lstatSync(sub).isSymbolicLink()) unlinkSync(sub);
    else rmSync(sub, { recursive: true, force: true });
  } catch {
    // Already gone (a tool call may be making it at the same moment).
  }
}

process.send?.('ready');
for (;;) {
  try {
    remove();
    symlinkSync(outside, sub);
    remove();
    mkdirSync(sub);
  } catch {
    // A tool call made `sub` in between: start over.
  }
}
