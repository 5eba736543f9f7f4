import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { awaitingToolCalls, InMemorySessionStore } from '@agentkit/core';
import { ScriptedModel, textChunks, toolCallChunk } from '@agentkit/core/testing';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { buildDemoAgent } from './build-demo-agent';
import { confirmCall } from './confirm-call';
import { seedSandbox } from './seed-sandbox';
import { runDemoReply } from './run-demo-reply';
import { terminalSafe } from './terminal-safe';
import { Transcript } from './transcript';

/** What a hostile model sends: sequences that move the cursor, erase lines, hide text, make links, reverse text. */
const ERASE_LINE_ABOVE = '\x1b[1A\x1b[2K'; // CSI: cursor up, erase the line
const HIDE = '\x1b[8m'; // SGR conceal
const LINK = '\x1b]8;;https://evil.example\x07click here\x1b]8;;\x07'; // OSC 8 hyperlink, BEL-terminated
const TITLE = '\x1b]0;owned\x1b\\'; // OSC 0 window title, ST-terminated
const C1_CSI = '\x9b2J'; // 8-bit CSI: clear the screen
const RLO = '\u202e'; // right-to-left override: 'txt.exe' shows as 'exe.txt'

/** Any character a terminal would act on instead of showing (test it on text without newlines and tabs). */
const ACTIVE = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/u;

class Capture extends Writable {
  text = '';
  override _write(chunk: Buffer, _encoding: string, done: () => void): void {
    this.text += chunk.toString('utf8');
    done();
  }
}

let sandbox: string;
beforeEach(async () => {
  sandbox = await mkdtemp(join(tmpdir(), 'agentkit-transcript-'));
  await seedSandbox(sandbox);
});
afterEach(() => rm(sandbox, { recursive: true, force: true }));

describe('terminalSafe', () => {
  it('writes every control character as a visible escape and keeps the text around it', () => {
    expect(terminalSafe(`ok${ERASE_LINE_ABOVE}\rdone`)).toBe('ok\\x1b[1A\\x1b[2K\\rdone');
    expect(terminalSafe(LINK)).toBe('\\x1b]8;;https://evil.example\\x07click here\\x1b]8;;\\x07');
    expect(terminalSafe(`${C1_CSI} ${RLO}exe.txt \u2066x\u2069 a\u2028b`)).toBe(
      '\\x9b2J \\u202eexe.txt \\u2066x\\u2069 a\\u2028b',
    );
    expect(terminalSafe('a\tb\nc')).toBe('a\tb\\nc');
    expect(terminalSafe('a\tb\r\nc\nd\re', { keepNewlines: true })).toBe('a\tb\nc\nd\\re');
    expect(terminalSafe('naïve 東京 👩‍💻 — fine')).toBe('naïve 東京 👩‍💻 — fine');
  });
});

describe('the transcript and the confirmation prompt, with a hostile model', () => {
  it('print model-controlled text, names and arguments escaped, and streamed text with its newlines', async () => {
    const content = `# Summary\n- one\n${ERASE_LINE_ABOVE}\r  ✔ auto-approved${HIDE}hidden part\n${RLO}txt.exe`;
    const model = new ScriptedModel([
      [
        ...textChunks(`Sure.${TITLE}\nNext line ${LINK}${ERASE_LINE_ABOVE}\r${C1_CSI}`),
        toolCallChunk(`no_such_tool${HIDE}`, { x: `${RLO}1` }, 'bad'),
      ],
      [toolCallChunk('write_file', { path: `notes${HIDE}.md\r`, content }, 'w1')],
    ]);
    const out = new Capture();
    const transcript = new Transcript(out);
    const { message: msg, record } = await runDemoReply({
      store: new InMemorySessionStore(),
      agent: (state) => buildDemoAgent({ model, sandbox, state }),
      input: 'Summarise notes.md.',
      transcript,
    });
    expect(msg.finishedReason).toBeNull(); // paused for the confirmation

    const [call] = awaitingToolCalls(record.state).filter((c) => c.state === 'asking');
    const input = new PassThrough();
    const prompt = new Capture();
    const answered = confirmCall(call!, { kind: 'ask' }, transcript, { input, output: prompt });
    input.end('n\n');
    expect((await answered).confirmed).toBe(false);

    const printed = out.text + prompt.text;
    expect(printed.replace(/[\n\t]/g, '')).not.toMatch(ACTIVE);
    // The attack is visible instead of acted on…
    expect(out.text).toContain('Next line \\x1b]8;;https://evil.example\\x07click here');
    expect(out.text).toContain('no_such_tool\\x1b[8m');
    expect(out.text).toContain('│ \\x1b[1A\\x1b[2K\\r  ✔ auto-approved\\x1b[8mhidden part');
    expect(out.text).toContain('│ \\u202etxt.exe');
    expect(out.text).toContain('path: notes\\x1b[8m.md\\r');
    // …and streamed text keeps its line breaks (indented under the first line).
    expect(out.text).toContain('  Sure.\\x1b]0;owned\\x1b\\\n  Next line');
    expect(prompt.text).toContain('Allow write_file? [y/N]');
  });
});
