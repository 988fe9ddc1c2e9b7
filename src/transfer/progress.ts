// How far `kurz import` is, on stderr: on a terminal, one line redrawn in place (a bar
// when the file's size is known, the rows read and their rate), which the row reports
// print above; in a log, a plain line every 10,000 rows.

import { count, type ProgressOutput } from '../copy/progress.ts';

export interface ImportProgress {
  /** The rows read so far, and the bytes of the file read so far. */
  update(rows: number, bytes: number): void;
  /** A line of its own (a row's report), above the bar on a terminal. */
  say(text: string): void;
  done(): void;
}

export interface ImportProgressOptions {
  /** The file's size in bytes; undefined for stdin. */
  totalBytes?: number;
  /** Rows between two plain lines. */
  everyRows?: number;
  /** The clock, in ms (tests give their own). */
  now?: () => number;
}

const LINE_ROWS = 10_000;
/** A bar is redrawn at most this often. */
const REDRAW_MS = 100;
const BAR_WIDTH = 24;
const CLEAR_LINE = '\r\x1b[2K';

export function importProgress(
  output: ProgressOutput,
  options: ImportProgressOptions = {},
): ImportProgress {
  const now = options.now ?? (() => performance.now());
  const started = now();
  const rate = (rows: number) => {
    const ms = now() - started;
    return ms > 0 ? `${count((rows * 1000) / ms)} rows/s` : '';
  };
  if (!output.isTTY) {
    const every = options.everyRows ?? LINE_ROWS;
    let said = 0;
    return {
      update(rows) {
        if (Math.floor(rows / every) <= Math.floor(said / every)) return;
        said = rows;
        output.write(`kurz import: ${count(rows)} rows read (${rate(rows)})\n`);
      },
      say: (text) => output.write(`${text}\n`),
      done() {},
    };
  }
  let rows = 0;
  let bytes = 0;
  let drawn = Number.NEGATIVE_INFINITY;
  let shown = false;
  const draw = () => {
    drawn = now();
    shown = true;
    const total = options.totalBytes;
    let bar = '';
    if (total !== undefined && total > 0) {
      const filled = Math.round(Math.min(1, bytes / total) * BAR_WIDTH);
      bar = `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] `;
    }
    output.write(`${CLEAR_LINE}kurz import ${bar}${count(rows)} rows  ${rate(rows)}`);
  };
  return {
    update(nextRows, nextBytes) {
      rows = nextRows;
      bytes = nextBytes;
      if (now() - drawn >= REDRAW_MS) draw();
    },
    say(text) {
      output.write(`${shown ? CLEAR_LINE : ''}${text}\n`);
      if (shown) draw();
    },
    done() {
      if (!shown) return;
      draw();
      output.write('\n');
    },
  };
}
