// What kurz prints of a file's, a flag's or a database's text: control characters shown
// as escapes, so that nothing read can drive the terminal it is printed on.

import { expect, test } from 'bun:test';
import { printable } from '../../src/domain/printable.ts';

test('C0 controls, DEL and C1 controls are shown as escapes; line breaks and tabs by name', () => {
  expect(printable('\x1b]0;PWNED\x07\x1b[2J,x')).toBe('\\x1b]0;PWNED\\x07\\x1b[2J,x');
  expect(printable('a\nb\r\nc\td')).toBe('a\\nb\\r\\nc\\td');
  expect(printable('\x00\x08\x7f')).toBe('\\x00\\x08\\x7f');
  expect(printable('\u0080\u009b31m\u009f')).toBe('\\u0080\\u009b31m\\u009f');
});

test('everything else is kept as it is: text, backslashes, non-ASCII letters and emoji', () => {
  for (const text of ['https://example.com/a?b=c', 'C:\\path\\x1b', 'Grüße, ÿ à ¡', '🦘 kurz']) {
    expect(printable(text)).toBe(text);
  }
});
