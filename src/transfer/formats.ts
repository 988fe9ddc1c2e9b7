// What `kurz import` reads: kurz's own export and the exports of the shorteners people
// leave for it (YOURLS, Kutt, Shlink, Bitly), as CSV or JSON. Each format is told from
// its first line(s) and turned into the same entries (entries.ts); columns.ts says what
// each format's columns mean, csv-input.ts and json-input.ts read the two syntaxes.

import type { FormatName } from './columns.ts';
import { guessDelimiter } from './csv.ts';
import { readCsv } from './csv-input.ts';
import { type Input, InputError } from './entries.ts';
import { readJson } from './json-input.ts';

/**
 * Opens an export file: recognises its format (or takes `from`) from its first lines,
 * and returns its entries, read as they are consumed. Throws InputError when the file
 * is no format kurz reads.
 */
export async function readInput(
  chunks: AsyncIterable<string>,
  from: FormatName | undefined,
): Promise<Input> {
  const { head, text } = await peekFirstLine(chunks);
  const first = head.trimStart();
  if (first === '') throw new InputError('the file is empty');
  if (first.startsWith('{') || first.startsWith('[')) return readJson(head, text, from);
  return readCsv(guessDelimiter(head), text, from);
}

/** How much of a first line is read to tell the format. */
const PEEK_LIMIT = 64 * 1024;

/**
 * The first line that is not blank (or its first 64 KiB), and the whole text again (that line included), so
 * that the readers after it count lines from the start.
 */
async function peekFirstLine(
  chunks: AsyncIterable<string>,
): Promise<{ head: string; text: AsyncIterable<string> }> {
  const iterator = chunks[Symbol.asyncIterator]();
  const seen: string[] = [];
  let buffered = '';
  let head = '';
  for (;;) {
    const next = await iterator.next();
    if (next.done) {
      head = buffered.trim() === '' ? '' : (buffered.split(/\r?\n/).find((l) => l.trim()) ?? '');
      break;
    }
    seen.push(next.value);
    buffered += next.value;
    const lines = buffered.split(/\r?\n/);
    const found = lines.slice(0, -1).find((line) => line.trim() !== '');
    if (found !== undefined) {
      head = found;
      break;
    }
    // A document on one line (an API's answer saved as it came) is not held whole.
    if (buffered.length > PEEK_LIMIT) {
      head = buffered.trimStart();
      break;
    }
  }
  async function* replay() {
    yield* seen;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield next.value;
    }
  }
  return { head, text: replay() };
}
