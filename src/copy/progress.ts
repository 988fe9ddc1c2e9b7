// How far `kurz copy` is: on a terminal, a bar per table redrawn in place; in a log
// (stderr not a terminal), a line when a table starts and ends and every few seconds.

export interface TableProgress {
  advance(rows: number): void;
  done(): void;
}

export interface Progress {
  table(name: string, total: number): TableProgress;
  /** A step without a count, such as the verification at the end. */
  note(text: string): void;
}

export interface ProgressOutput {
  write(text: string): unknown;
  isTTY?: boolean;
}

export interface ProgressOptions {
  /** Between two plain lines of one table (ms). */
  intervalMs?: number;
  /** The clock, in ms (tests give their own). */
  now?: () => number;
}

/** Plain lines every this often. */
const LINE_INTERVAL_MS = 5000;
/** A bar is redrawn at most this often: a terminal need not draw a thousand frames a second. */
const REDRAW_MS = 100;
const BAR_WIDTH = 24;
const NAME_WIDTH = 13;

export const count = (n: number) => Math.round(n).toLocaleString('en-US');

function rate(rows: number, ms: number): string {
  return ms > 0 ? `${count((rows * 1000) / ms)} rows/s` : '';
}

export function progressTo(output: ProgressOutput, options: ProgressOptions = {}): Progress {
  const now = options.now ?? (() => performance.now());
  return {
    table: (name, total) =>
      output.isTTY
        ? new Bar(output, now, name, total)
        : new Lines(output, now, name, total, options.intervalMs ?? LINE_INTERVAL_MS),
    note: (text) => output.write(`kurz copy: ${text}\n`),
  };
}

class Bar implements TableProgress {
  private rows = 0;
  private readonly started: number;
  private drawn = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly output: ProgressOutput,
    private readonly now: () => number,
    private readonly name: string,
    private readonly total: number,
  ) {
    this.started = now();
    this.draw();
  }

  advance(rows: number): void {
    this.rows += rows;
    if (this.now() - this.drawn >= REDRAW_MS) this.draw();
  }

  done(): void {
    this.draw();
    this.output.write('\n');
  }

  private draw(): void {
    const at = this.now();
    this.drawn = at;
    const share = this.total > 0 ? Math.min(1, this.rows / this.total) : 1;
    const filled = Math.round(share * BAR_WIDTH);
    const bar = `${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}`;
    const line = `${this.name.padEnd(NAME_WIDTH)} [${bar}] ${count(this.rows)} / ${count(this.total)}  ${rate(this.rows, at - this.started)}`;
    // Back to the line's start and clear it: the bar is redrawn in place.
    this.output.write(`\r\x1b[2K${line}`);
  }
}

class Lines implements TableProgress {
  private rows = 0;
  private readonly started: number;
  private said: number;

  constructor(
    private readonly output: ProgressOutput,
    private readonly now: () => number,
    private readonly name: string,
    private readonly total: number,
    private readonly intervalMs: number,
  ) {
    this.started = now();
    this.said = this.started;
    this.say(`${count(total)} ${total === 1 ? 'row' : 'rows'} to copy`);
  }

  advance(rows: number): void {
    this.rows += rows;
    const at = this.now();
    if (at - this.said < this.intervalMs) return;
    this.said = at;
    const percent = this.total > 0 ? Math.floor((100 * this.rows) / this.total) : 100;
    this.say(
      `${count(this.rows)} of ${count(this.total)} rows (${percent}%), ${rate(this.rows, at - this.started)}`,
    );
  }

  done(): void {
    const ms = this.now() - this.started;
    const speed = this.rows > 0 ? ` (${rate(this.rows, ms)})` : '';
    this.say(
      `${count(this.rows)} ${this.rows === 1 ? 'row' : 'rows'} copied in ${(ms / 1000).toFixed(1)} s${speed}`,
    );
  }

  private say(text: string): void {
    this.output.write(`kurz copy: ${this.name}: ${text}\n`);
  }
}
