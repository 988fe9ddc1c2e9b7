// Text from a file, a flag or a database, made safe to print on a terminal: a control
// character (C0, DEL, C1) in it could otherwise set the window's title, clear the screen
// or move the cursor (`\x1b]0;…\x07`, `\x1b[2J`, `\u009b…`). Each is shown as an escape
// instead; every other character is kept as it is.

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is its whole point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g;

const NAMED: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

function visible(char: string): string {
  const named = NAMED[char];
  if (named !== undefined) return named;
  const code = char.charCodeAt(0);
  // C1 controls are characters above U+007F: written as JavaScript writes them.
  return code < 0x80
    ? `\\x${code.toString(16).padStart(2, '0')}`
    : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** The text with every control character shown as an escape (`\x1b`, `\n`, `\u009b`). */
export function printable(text: string): string {
  return text.replace(CONTROL, visible);
}
