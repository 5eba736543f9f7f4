/**
 * Characters a terminal acts on instead of showing: C0 controls (ESC starts CSI and OSC sequences that move
 * the cursor, clear lines, set the title or make links; CR returns to the start of the line), DEL, C1
 * controls (U+009B is an 8-bit CSI), bidirectional overrides, embeddings and isolates (U+202E shows text
 * backwards) and the Unicode line and paragraph separators.
 */
const CONTROL = /[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029]/gu;

const NAMED: Readonly<Record<string, string>> = { '\r': '\\r', '\n': '\\n' };

const visibleEscape = (char: string): string => {
  const named = NAMED[char];
  if (named) return named;
  const code = char.codePointAt(0)!;
  return code < 0x100
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
};

/**
 * Model-controlled text made safe to print: every control character (see above) is written as a visible
 * escape (`\x1b` for ESC, `\r`, `\x07`, `\x9b`, `\u202e`), so text from a model, a tool or a
 * file can neither redraw nor hide what the terminal shows — the confirmation prompt above all. Tabs stay; newlines stay with
 * `keepNewlines` (streamed text), a Windows `\r\n` becoming `\n`.
 */
export function terminalSafe(text: string, options: { keepNewlines?: boolean } = {}): string {
  const input = options.keepNewlines ? text.replaceAll('\r\n', '\n') : text;
  return input.replace(CONTROL, (char) =>
    char === '\t' || (char === '\n' && options.keepNewlines) ? char : visibleEscape(char),
  );
}
