import { createInterface } from 'node:readline/promises';
import type { ConfirmResult, ToolCallBlock } from '@agentkit/core';
import { terminalSafe } from './terminal-safe';
import type { Transcript } from './transcript';

/** How confirmations are answered: by the user on a TTY, or automatically. */
export type ConfirmMode = { kind: 'ask' } | { kind: 'auto'; reason: string };

/** Asks on a TTY; approves automatically when stdin is not a TTY (CI) or when `AUTO_APPROVE=1`. */
export function confirmMode(
  env: NodeJS.ProcessEnv = process.env,
  stdinIsTTY = process.stdin.isTTY === true,
): ConfirmMode {
  if (env.AUTO_APPROVE === '1') return { kind: 'auto', reason: 'AUTO_APPROVE=1' };
  if (!stdinIsTTY) return { kind: 'auto', reason: 'stdin is not a TTY' };
  return { kind: 'ask' };
}

/**
 * Shows the waiting call and gets the answer (y/n on a TTY), as a confirm result for `userConfirmResult`.
 * The call's name and arguments come from the model: they are printed with control characters escaped, so
 * they cannot redraw the prompt. `io` defaults to the process's stdin and stdout.
 */
export async function confirmCall(
  call: ToolCallBlock,
  mode: ConfirmMode,
  transcript: Transcript,
  io: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream } = {
    input: process.stdin,
    output: process.stdout,
  },
): Promise<ConfirmResult> {
  transcript.describeCall(call);
  let confirmed = true;
  if (mode.kind === 'auto') transcript.line(`  ✔ auto-approved (${mode.reason})`);
  else {
    const rl = createInterface(io);
    try {
      const answer = await rl.question(`  Allow ${terminalSafe(call.name)}? [y/N] `);
      confirmed = /^\s*y(es)?\s*$/i.test(answer);
    } finally {
      rl.close();
    }
    transcript.line(confirmed ? '  ✔ approved' : '  ✘ denied');
  }
  return { confirmed, toolCall: { id: call.id, name: call.name, input: call.input } };
}
