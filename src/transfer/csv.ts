// CSV as RFC 4180 has it, both ways: records read from text that arrives in chunks
// (a quoted field may hold delimiters, quotes and line breaks), each with the line it
// starts on; and fields written so that a spreadsheet never runs one as a formula.

import { MAX_RECORD_CHARS } from './record-limit.ts';

/** A record of a CSV file and the line (from 1) it starts on. */
export interface CsvRecord {
  line: number;
  fields: string[];
  /**
   * The record was longer than MAX_RECORD_CHARS: its fields were dropped as they were
   * read (`fields` is empty). "quoted": it ran long inside a quoted field, as the rest of
   * a file does after a quote that is never closed.
   */
  tooLong?: 'quoted' | 'unquoted';
}

/** The delimiters kurz recognises: comma, semicolon (spreadsheets of some locales), tab. */
const DELIMITERS = [',', ';', '\t'] as const;

/**
 * The delimiter of a CSV file, judged from its first line: the one of `, ; TAB` found
 * most often outside quotes; a comma when none is.
 */
export function guessDelimiter(firstLine: string): string {
  const counts = new Map<string, number>(DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (const char of firstLine) {
    if (char === '"') quoted = !quoted;
    else if (!quoted && counts.has(char)) counts.set(char, (counts.get(char) ?? 0) + 1);
  }
  let best = ',';
  for (const [delimiter, n] of counts) if (n > (counts.get(best) ?? 0)) best = delimiter;
  return best;
}

/**
 * The same text, in chunks that never end with a CR: one held back joins the next chunk,
 * so a CRLF split across two chunks is still seen as one line break.
 */
async function* wholeLineBreaks(chunks: AsyncIterable<string>): AsyncGenerator<string> {
  let held = '';
  for await (const chunk of chunks) {
    const text = held + chunk;
    held = text.endsWith('\r') ? '\r' : '';
    if (text.length > held.length) yield held === '' ? text : text.slice(0, -1);
  }
  if (held !== '') yield held;
}

/** Line breaks in a run of text: LF, CRLF or a lone CR, each once. */
function lineBreaks(run: string): number {
  let n = 0;
  for (let k = run.indexOf('\n'); k !== -1; k = run.indexOf('\n', k + 1)) n++;
  for (let k = run.indexOf('\r'); k !== -1; k = run.indexOf('\r', k + 1)) {
    if (run.charCodeAt(k + 1) !== 10) n++;
  }
  return n;
}

/**
 * Reads CSV records from text chunks, one at a time: a file of any size is never held
 * whole, nor a record over MAX_RECORD_CHARS (see CsvRecord.tooLong). Lenient where files
 * in the wild are (a quote inside an unquoted field is kept as it is; CRLF, LF and a last
 * line without a break all end a record); blank lines are skipped.
 */
export async function* csvRecords(
  chunks: AsyncIterable<string>,
  delimiter = ',',
): AsyncGenerator<CsvRecord> {
  const sep = delimiter.charCodeAt(0);
  let fields: string[] = [];
  let field = '';
  /** Whether the record has anything yet (a blank line has not). */
  let started = false;
  let quoted = false;
  /** A quote was just read inside a quoted field: the next character says which it was. */
  let quoteSeen = false;
  let line = 1;
  let recordLine = 1;
  /** Characters of the record's earlier fields (and their delimiters) that are kept. */
  let size = 0;
  let tooLong: CsvRecord['tooLong'];
  // The limit is checked at a record's end and at a chunk's, not in the loop: a record
  // is held to the limit and a chunk at most, and the loop over characters stays as fast.
  // (No closure shares this state: variables a closure writes are kept out of
  // registers, which made this loop a third slower.)
  for await (const chunk of wholeLineBreaks(chunks)) {
    const records: CsvRecord[] = [];
    let i = 0;
    const n = chunk.length;
    while (i < n) {
      const c = chunk.charCodeAt(i);
      if (quoted) {
        if (!quoteSeen) {
          // The run up to the next quote, line breaks and delimiters included, at once.
          const q = chunk.indexOf('"', i);
          const end = q === -1 ? n : q;
          const run = chunk.slice(i, end);
          field += run;
          line += lineBreaks(run);
          if (q !== -1) quoteSeen = true;
          i = q === -1 ? n : q + 1;
          continue;
        }
        quoteSeen = false;
        if (c === 34) {
          field += '"';
          i++;
          continue;
        }
        // This character follows the closing quote.
        quoted = false;
      }
      if (c === sep) {
        fields.push(field);
        size += field.length + 1;
        field = '';
        started = true;
        i++;
      } else if (c === 10 || c === 13) {
        if (started || field !== '') {
          const over = size + field.length > MAX_RECORD_CHARS ? 'unquoted' : undefined;
          fields.push(field);
          records.push(record(recordLine, fields, tooLong ?? over));
        }
        fields = [];
        field = '';
        size = 0;
        tooLong = undefined;
        started = false;
        line++;
        recordLine = line;
        i += c === 13 && chunk.charCodeAt(i + 1) === 10 ? 2 : 1;
      } else if (c === 34 && field === '') {
        quoted = true;
        started = true;
        i++;
      } else {
        // An unquoted run up to the next delimiter or line break.
        let stop = i + 1;
        while (stop < n) {
          const e = chunk.charCodeAt(stop);
          if (e === sep || e === 10 || e === 13) break;
          stop++;
        }
        field += chunk.slice(i, stop);
        started = true;
        i = stop;
      }
    }
    if (size + field.length > MAX_RECORD_CHARS) {
      // Past the limit, what is kept of the record is dropped; it is read to its end.
      tooLong ??= quoted ? 'quoted' : 'unquoted';
      fields = [];
      // Outside quotes, a character stands for the dropped text, so that a quote after
      // it is still read as part of the field, not as the opening of a quoted one.
      field = quoted ? '' : '…';
      size = 0;
    }
    yield* records;
  }
  if (started || field !== '') {
    const over = size + field.length > MAX_RECORD_CHARS ? 'unquoted' : undefined;
    fields.push(field);
    yield record(recordLine, fields, tooLong ?? over);
  }
}

function record(line: number, fields: string[], tooLong: CsvRecord['tooLong']): CsvRecord {
  return tooLong === undefined ? { line, fields } : { line, fields: [], tooLong };
}

/**
 * A field as CSV writes it: quoted when it holds a quote, a delimiter or a line break
 * (RFC 4180). A field that a spreadsheet would run as a formula (starting with = + - @,
 * a tab or a CR) is prefixed with ' (OWASP's advice), and so is one that starts with '
 * itself, so that reading strips exactly one ' and gives back the value as it was.
 */
export function csvField(value: string): string {
  const safe = /^[=+\-@\t\r']/.test(value) ? `'${value}` : value;
  return /[",\r\n;]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** A field written by csvField, as it was: its protective ' removed. */
export function fromCsvField(value: string): string {
  return value.startsWith("'") ? value.slice(1) : value;
}

/** A record as one CSV line, ending in CRLF (RFC 4180). */
export function csvLine(values: readonly string[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}
