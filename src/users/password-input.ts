// Reads a password for `kurz user`: from a prompt without echo when stdin is a terminal,
// else the first line of stdin (a script pipes it in). Never from an argument, where
// `ps` and the shell's history would show it.

/** The first line of a stream, without its line ending. */
async function firstLine(stream: NodeJS.ReadStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) {
    text += String(chunk);
    const end = text.indexOf('\n');
    if (end !== -1) return text.slice(0, end).replace(/\r$/, '');
  }
  return text.replace(/\r$/, '');
}

/** Asks on the terminal with echo off; Ctrl-C ends kurz, as it would any prompt. */
function prompt(question: string): Promise<string> {
  const input = process.stdin;
  // Echo off before the prompt shows: an answer typed at once must not be echoed.
  input.setRawMode(true);
  process.stderr.write(question);
  input.resume();
  input.setEncoding('utf8');
  return new Promise((resolve) => {
    let typed = '';
    const done = (value: string) => {
      input.off('data', onData);
      input.setRawMode(false);
      input.pause();
      process.stderr.write('\n');
      resolve(value);
    };
    const onData = (chunk: string) => {
      for (const char of chunk) {
        if (char === '\r' || char === '\n') return done(typed);
        if (char === '\u0003') {
          input.setRawMode(false);
          process.stderr.write('\n');
          process.exit(130);
        }
        if (char === '\u007f' || char === '\b') typed = [...typed].slice(0, -1).join('');
        else if (char >= ' ') typed += char;
      }
    };
    input.on('data', onData);
  });
}

/**
 * The new password: asked twice on a terminal (a typo must not lock the account out),
 * read once from stdin otherwise. Throws a message when the two differ.
 */
export async function readNewPassword(): Promise<string> {
  if (!process.stdin.isTTY) return firstLine(process.stdin);
  const first = await prompt('New password: ');
  const again = await prompt('Repeat it: ');
  if (first !== again) throw new PasswordInputError('the two passwords differ; nothing changed');
  return first;
}

export class PasswordInputError extends Error {
  override name = 'PasswordInputError';
}
