// How far kurz import is: on a terminal a bar redrawn in place, with row reports
// printed above it; in a log a plain line every 10,000 rows; on a clock of the test's.

import { describe, expect, test } from 'bun:test';
import { importProgress } from '../../src/transfer/progress.ts';

function output(isTTY: boolean) {
  const written: string[] = [];
  return { written, sink: { isTTY, write: (text: string) => written.push(text) } };
}

describe('import progress', () => {
  test('on a terminal: a bar of the share of the file read, rows and rate, redrawn in place', () => {
    let clock = 0;
    const { written, sink } = output(true);
    const progress = importProgress(sink, { totalBytes: 1000, now: () => clock });
    clock = 1000;
    progress.update(2000, 500);
    expect(written).toEqual([
      '\r\x1b[2Kkurz import [############------------] 2,000 rows  2,000 rows/s',
    ]);
    // Not redrawn more than ten times a second.
    clock = 1050;
    progress.update(4000, 600);
    expect(written).toHaveLength(1);
    // A report goes above the bar, which is drawn again under it.
    progress.say('kurz: line 7: no URL; skipped');
    expect(written.slice(1)).toEqual([
      '\r\x1b[2Kkurz: line 7: no URL; skipped\n',
      '\r\x1b[2Kkurz import [##############----------] 4,000 rows  3,810 rows/s',
    ]);
    clock = 2000;
    progress.update(6000, 1000);
    progress.done();
    expect(written.slice(-2)).toEqual([
      '\r\x1b[2Kkurz import [########################] 6,000 rows  3,000 rows/s',
      '\n',
    ]);
  });

  test('from stdin, of unknown size: rows and rate without a bar', () => {
    const { written, sink } = output(true);
    const progress = importProgress(sink, { now: () => 500 });
    progress.update(10, 100);
    expect(written[0]).toBe('\r\x1b[2Kkurz import 10 rows  ');
  });

  test('in a log: a plain line each time another 10,000 rows are read, reports as they come', () => {
    let clock = 0;
    const { written, sink } = output(false);
    const progress = importProgress(sink, { now: () => clock });
    for (const rows of [2000, 8000, 10_000, 12_000, 18_000, 20_000, 21_000]) {
      clock += 100;
      progress.update(rows, 0);
    }
    progress.say('kurz: line 3: no URL; skipped');
    progress.done();
    expect(written).toEqual([
      'kurz import: 10,000 rows read (33,333 rows/s)\n',
      'kurz import: 20,000 rows read (33,333 rows/s)\n',
      'kurz: line 3: no URL; skipped\n',
    ]);
  });
});
